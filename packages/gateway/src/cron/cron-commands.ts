import type { CommandDefinition } from "../commands/types.js";
import { cronRunKey, isCronRunKey } from "./cron-run-key.js";
import { createCronJob, describeJob, describeJobList, removeCronJob } from "./cron-jobs.js";
import { parseCronCommand } from "./cron-command-args.js";

/** `/cron`, `/cron list`, `/cron create <schedule> <prompt>`, `/cron remove <id>`: the chat's scheduled tasks. */
export const cronCommands: CommandDefinition[] = [
  {
    name: "cron",
    usage: "/cron [list | create <schedule> <prompt> | remove <id>]",
    description: "schedule a prompt to run later in this chat, list or remove scheduled tasks",
    run: async (context) => {
      const command = parseCronCommand(context.args);
      const { message } = context;
      const jobs = context.store.cronJobs;
      const chat = { platform: message.platform, chatId: message.chat.id };
      switch (command.action) {
        case "invalid":
          return command.error;
        case "list":
          return describeJobList(await jobs.listForChat(chat.platform, chat.chatId));
        case "remove": {
          if (!(await removeCronJob(jobs, chat, command.id))) return `No scheduled task ${command.id} in this chat. Send /cron to list them.`;
          // Its run has a key of its own, which the chat's /stop does not reach: removing the task is how to stop it.
          const key = cronRunKey(command.id.toLowerCase());
          if ((await context.store.inbound.unanswered(key)) === 0) return `Removed the scheduled task ${command.id}.`;
          await context.store.inbound.cancelQueued(key);
          await context.queue.stop(key);
          return `Removed the scheduled task ${command.id} and stopped its run in progress.`;
        }
        case "create": {
          if (isCronRunKey(context.sessionKey)) return "A scheduled task cannot create scheduled tasks.";
          const created = await createCronJob(
            jobs,
            { ...chat, chatType: message.chat.type, ...(message.threadId !== undefined && { threadId: message.threadId }), creatorId: message.user.id, sessionKey: context.sessionKey },
            { schedule: command.schedule, prompt: command.prompt },
            context.now(),
          );
          return created.ok ? `Scheduled: ${describeJob(created.job)}\nRemove it with /cron remove ${created.job.id}.` : created.error;
        }
      }
    },
  },
];
