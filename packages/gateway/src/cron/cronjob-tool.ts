import { defineTool, type AnyToolDefinition, type RunCaller } from "@hermes/agent";
import type { NewCronJob, Store } from "@hermes/store";
import { Type } from "@sinclair/typebox";
import { createCronJob, describeJob, describeJobList, MAX_PROMPT_CHARS, removeCronJob, type CronChat } from "./cron-jobs.js";
import { isCronRunKey } from "./cron-run-key.js";
import { SCHEDULE_FORMS } from "./schedule.js";

export const CRONJOB_TOOL = "cronjob";

const parameters = Type.Object({
  action: Type.Union([Type.Literal("create"), Type.Literal("list"), Type.Literal("remove")], { description: "create a task, list this chat's tasks, or remove one by id" }),
  schedule: Type.Optional(Type.String({ maxLength: 200, description: `For create: ${SCHEDULE_FORMS}.` })),
  prompt: Type.Optional(Type.String({ maxLength: MAX_PROMPT_CHARS, description: "For create: what to do at each run, written as a request to you (the run starts a fresh conversation, so include every detail it needs)." })),
  id: Type.Optional(Type.String({ maxLength: 32, description: "For remove: the task's id, as list shows it." })),
});

/**
 * Lets the model schedule prompts that run later in this chat (and list or remove this chat's). Each task it creates
 * is announced in the chat by the gateway itself, so one the model was talked into (a fetched page saying "schedule
 * this every minute") does not go unnoticed.
 */
export function cronjobTool(store: Pick<Store, "cronJobs" | "deliveries">, now: () => number = Date.now): AnyToolDefinition {
  const jobs = store.cronJobs;
  return defineTool({
    name: CRONJOB_TOOL,
    description:
      "Schedules a prompt to run later in this chat, once or repeatedly; each run is a fresh conversation whose answer is posted here. " +
      "Also lists this chat's scheduled tasks and removes one by id.",
    guidance:
      "Use cronjob when the user asks to be reminded, or for something to be done later or regularly (\"every morning\", " +
      "\"in 20 minutes\"). Cron expressions are in UTC: convert the user's local time if they gave one. The prompt runs " +
      "without this conversation, so write it self-contained. Tell the user the task's id and when it runs next.",
    parameters,
    concurrency: "never-parallel",
    handler: async (args, context) => {
      const chat = chatOf(context.caller);
      if (chat === undefined) return { content: "cronjob is unavailable: this run is not tied to a chat.", isError: true };
      if (args.action === "list") {
        const listed = await jobs.listForChat(chat.platform, chat.chatId);
        return { content: describeJobList(listed), details: { jobs: listed.length } };
      }
      if (args.action === "remove") {
        if (args.id === undefined || args.id.trim() === "") return { content: "remove needs the task's id (see list).", isError: true };
        const removed = await removeCronJob(jobs, chat, args.id);
        return removed ? { content: `Removed the scheduled task ${args.id.trim()}.`, details: { removed: true } } : { content: `No scheduled task ${args.id.trim()} in this chat.`, isError: true };
      }
      // A scheduled run that schedules more would multiply without anyone asking.
      if (isCronRunKey(chat.sessionKey)) return { content: "A scheduled task cannot create scheduled tasks.", isError: true };
      if (args.schedule === undefined || args.prompt === undefined) return { content: "create needs a schedule and a prompt.", isError: true };
      const created = await createCronJob(jobs, chat, { schedule: args.schedule, prompt: args.prompt }, now());
      if (!created.ok) return { content: created.error, isError: true };
      await store.deliveries.enqueue({ ...chatTarget(created.job), text: creationNotice(created.job), kind: "notice" });
      return { content: `Scheduled: ${describeJob(created.job)}`, details: { id: created.job.id, nextRunAt: created.job.nextRunAt } };
    },
  });
}

function chatOf(caller: RunCaller | undefined): CronChat | undefined {
  if (caller?.platform === undefined || caller.chatId === undefined || caller.userId === undefined || caller.sessionKey === undefined) return undefined;
  return {
    platform: caller.platform,
    chatId: caller.chatId,
    chatType: caller.chatType ?? "dm",
    ...(caller.threadId !== undefined && { threadId: caller.threadId }),
    creatorId: caller.userId,
    sessionKey: caller.sessionKey,
  };
}

const NOTICE_PROMPT_CHARS = 200;

/** The gateway's words, not the model's: what was scheduled and how to cancel it. */
export function creationNotice(job: NewCronJob): string {
  const prompt = job.prompt.length > NOTICE_PROMPT_CHARS ? `${job.prompt.slice(0, NOTICE_PROMPT_CHARS - 1)}…` : job.prompt;
  return `Scheduled task ${job.id} created: ${job.schedule} — “${prompt}”. /cron remove ${job.id} cancels it.`;
}

function chatTarget(job: NewCronJob): { platform: string; chatId: string; threadId?: string; sessionKey: string } {
  return { platform: job.platform, chatId: job.chatId, ...(job.threadId !== undefined && { threadId: job.threadId }), sessionKey: job.sessionKey };
}
