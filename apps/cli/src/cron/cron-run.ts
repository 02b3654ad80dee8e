import { bootstrap, openConfiguredStore, reportIssue } from "@hermes/gateway";
import type { ParsedCommand } from "../cli/command-spec.js";
import { executeCronCommand } from "./cron-command.js";

export interface CronRunIo {
  env: Record<string, string | undefined>;
  cwd: string;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** `hermes cron …` against the state database the gateway uses; the running gateway sees a removal at its next look. */
export async function cronCommand(command: ParsedCommand, io: CronRunIo): Promise<number> {
  const boot = await bootstrap({ env: io.env, cwd: io.cwd, stderr: io.stderr, logName: "cli", traces: false });
  if (!boot.ok) return boot.exitCode;
  const opened = await openConfiguredStore(boot.value.config, boot.value.logger);
  if (!opened.ok) return reportIssue(io.stderr, opened.issue);
  try {
    return await executeCronCommand(command, { stdout: io.stdout, stderr: io.stderr, store: opened.store });
  } finally {
    await opened.store.close();
  }
}
