import { randomInt } from "node:crypto";
import type { CronJobRecord, CronJobRepository, NewCronJob } from "@hermes/store";
import { API_PLATFORM } from "../api/api-adapter.js";
import { cronJobsChanged } from "./cron-changes.js";
import { parseSchedule } from "./schedule.js";

/** The chat a job is created in and for: its runs answer there, with the creator's authorization. */
export type CronChat = Pick<NewCronJob, "platform" | "chatId" | "chatType" | "threadId" | "creatorId" | "sessionKey">;

export const MAX_JOBS_PER_CHAT = 25;
export const MAX_PROMPT_CHARS = 4_000;
/** Creations per chat in a rolling hour: a model talked into scheduling in a loop is stopped early. */
export const MAX_CREATIONS_PER_HOUR = 10;
const HOUR_MS = 3_600_000;
const ID_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

export function newCronJobId(): string {
  return Array.from({ length: 8 }, () => ID_ALPHABET[randomInt(ID_ALPHABET.length)]).join("");
}

/** Validates and stores a job for the chat; a bad schedule or prompt, or a full chat, is an error value. */
export async function createCronJob(
  jobs: Pick<CronJobRepository, "create" | "listForChat">,
  chat: CronChat,
  input: { schedule: string; prompt: string },
  now: number,
  newId: () => string = newCronJobId,
): Promise<{ ok: true; job: NewCronJob } | { ok: false; error: string }> {
  // An API request's answer goes back to its HTTP caller; a later run would have nobody to answer.
  if (chat.platform === API_PLATFORM) return { ok: false, error: "Scheduled tasks post their answers into a chat; a conversation over the OpenAI-compatible API has no chat to post in." };
  const prompt = input.prompt.trim();
  if (prompt === "") return { ok: false, error: "The prompt is empty: say what should be done at each run." };
  if (prompt.length > MAX_PROMPT_CHARS) return { ok: false, error: `The prompt is too long (${prompt.length} characters; at most ${MAX_PROMPT_CHARS}).` };
  const parsed = parseSchedule(input.schedule, now);
  if (!parsed.ok) return parsed;
  const existing = await jobs.listForChat(chat.platform, chat.chatId);
  // A one-shot that ran (or was missed) stays listed with its outcome, but no longer takes a place.
  const pending = existing.filter((job) => job.nextRunAt !== null);
  if (pending.length >= MAX_JOBS_PER_CHAT) return { ok: false, error: `This chat already has ${pending.length} scheduled tasks (at most ${MAX_JOBS_PER_CHAT}); remove one first.` };
  const lastHour = existing.filter((job) => job.createdAt > now - HOUR_MS);
  if (lastHour.length >= MAX_CREATIONS_PER_HOUR) return { ok: false, error: `This chat created ${lastHour.length} scheduled tasks in the last hour; try again later or remove some with /cron remove.` };
  const job: NewCronJob = {
    id: newId(),
    platform: chat.platform,
    chatId: chat.chatId,
    chatType: chat.chatType,
    ...(chat.threadId !== undefined && { threadId: chat.threadId }),
    creatorId: chat.creatorId,
    sessionKey: chat.sessionKey,
    schedule: input.schedule.trim().replace(/\s+/g, " "),
    kind: parsed.kind,
    prompt,
    nextRunAt: parsed.firstRunAt,
    createdAt: now,
  };
  await jobs.create(job);
  cronJobsChanged();
  return { ok: true, job };
}

/** Removes a job of this chat; another chat's job is "not found" here, as if it did not exist. */
export async function removeCronJob(jobs: Pick<CronJobRepository, "get" | "remove">, chat: { platform: string; chatId: string }, id: string): Promise<boolean> {
  const job = await jobs.get(id.trim().toLowerCase());
  if (!job || job.platform !== chat.platform || job.chatId !== chat.chatId) return false;
  return jobs.remove(job.id);
}

const PAUSED = "paused: its last answers could not be delivered (create it again to resume)";

export function formatTime(at: number): string {
  return `${new Date(at).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

export function describeJob(job: NewCronJob | CronJobRecord): string {
  const record = job as Partial<CronJobRecord>;
  const next = job.nextRunAt !== null ? `next ${formatTime(job.nextRunAt)}` : record.lastStatus === "paused" ? PAUSED : "no more runs";
  const last = record.lastRunAt !== undefined ? `, last ${formatTime(record.lastRunAt)} (${record.lastStatus ?? "ran"})` : "";
  const excerpt = job.prompt.length > 80 ? `${job.prompt.slice(0, 79)}…` : job.prompt;
  return `${job.id} — ${job.schedule} — ${next}${last}: ${excerpt}`;
}

export function describeJobList(jobs: readonly CronJobRecord[]): string {
  if (jobs.length === 0) return "No scheduled tasks in this chat.";
  return [`Scheduled tasks in this chat (${jobs.length}):`, ...jobs.map(describeJob)].join("\n");
}
