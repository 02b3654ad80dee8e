import type { CronJobRecord, Store } from "@hermes/store";
import { booleanOption, type ParsedCommand } from "../cli/command-spec.js";

export interface CronCommandIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  store: Pick<Store, "cronJobs">;
}

const LIST_LIMIT = 1_000;

/** Runs a `hermes cron` command line that already fits `CRON_GROUP`: 0 done, 1 no such task. */
export function executeCronCommand(command: ParsedCommand, io: CronCommandIo): Promise<number> {
  if (command.spec.name === "remove") return remove(command.positionals[0] ?? "", io);
  return list(io, booleanOption(command.values, "json"));
}

async function list(io: CronCommandIo, json: boolean): Promise<number> {
  const jobs = await io.store.cronJobs.listAll(LIST_LIMIT);
  if (json) {
    io.stdout.write(`${JSON.stringify(jobs, null, 2)}\n`);
    return 0;
  }
  if (jobs.length === 0) {
    io.stdout.write("No scheduled tasks.\n");
    return 0;
  }
  for (const job of jobs) io.stdout.write(`${line(job)}\n`);
  return 0;
}

async function remove(id: string, io: CronCommandIo): Promise<number> {
  if (await io.store.cronJobs.remove(id.trim().toLowerCase())) {
    io.stdout.write(`Removed the scheduled task ${id}.\n`);
    return 0;
  }
  io.stderr.write(`No scheduled task ${JSON.stringify(id)}; "hermes cron list" shows them.\n`);
  return 1;
}

function line(job: CronJobRecord): string {
  const next = job.nextRunAt === null ? "no more runs" : `next ${time(job.nextRunAt)}`;
  const last = job.lastRunAt === undefined ? "never ran" : `last ${time(job.lastRunAt)} ${job.lastStatus ?? ""}`.trimEnd();
  const chat = `${job.platform}:${job.chatType}:${job.chatId}${job.threadId ? `:${job.threadId}` : ""}`;
  const prompt = printable(job.prompt);
  return `${job.id}  ${chat}  ${JSON.stringify(job.schedule)}  ${next}  ${last}  by ${job.creatorId}  "${prompt.length > 60 ? `${prompt.slice(0, 59)}…` : prompt}"`;
}

function time(at: number): string {
  return `${new Date(at).toISOString().slice(0, 16).replace("T", " ")}Z`;
}

// A prompt comes from chat text: control characters must not drive the operator's terminal.
function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ");
}
