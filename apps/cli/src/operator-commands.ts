import { silentLogger } from "@hermes/agent";
import { BUNDLED_HOOKS_DIR, PairingService, bootstrap, reportIssue } from "@hermes/gateway";
import { tryOpenStore } from "@hermes/store";
import { runHooksCommand } from "./hooks/hooks-command.js";
import { runPairingCommand } from "./pairing/pairing-command.js";
import { runSessionsCommand } from "./sessions/sessions-command.js";

interface OperatorIo {
  env: Record<string, string | undefined>;
  cwd: string;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** `hermes pairing …`: approve, list and revoke users, against the same state database the gateway uses. */
export async function pairingCommand(args: readonly string[], io: OperatorIo): Promise<number> {
  const boot = await bootstrap({ env: io.env, cwd: io.cwd, stderr: io.stderr, logName: "cli" });
  if (!boot.ok) return boot.exitCode;
  const { config, logger } = boot.value;
  const opened = await tryOpenStore({ file: config.paths.stateDb, logger });
  if (!opened.ok) return reportIssue(io.stderr, { setting: "HERMES_HOME", message: `cannot open ${config.paths.stateDb}: ${opened.error.message}` });
  try {
    const service = new PairingService({ store: opened.store.pairing, logger });
    return await runPairingCommand(args, { stdout: io.stdout, stderr: io.stderr, service });
  } finally {
    await opened.store.close();
  }
}

/** `hermes sessions …`: list and read conversations from the state database. */
export async function sessionsCommand(args: readonly string[], io: OperatorIo): Promise<number> {
  const boot = await bootstrap({ env: io.env, cwd: io.cwd, stderr: io.stderr, logName: "cli" });
  if (!boot.ok) return boot.exitCode;
  const { config, logger } = boot.value;
  const opened = await tryOpenStore({ file: config.paths.stateDb, logger });
  if (!opened.ok) return reportIssue(io.stderr, { setting: "HERMES_HOME", message: `cannot open ${config.paths.stateDb}: ${opened.error.message}` });
  try {
    return await runSessionsCommand(args, { stdout: io.stdout, stderr: io.stderr, store: opened.store });
  } finally {
    await opened.store.close();
  }
}

/** `hermes hooks …`: list, enable, disable, install and test hooks; the running gateway picks changes up by itself. */
export async function hooksCommand(args: readonly string[], io: OperatorIo): Promise<number> {
  const boot = await bootstrap({ env: io.env, cwd: io.cwd, stderr: io.stderr, logName: "cli" });
  if (!boot.ok) return boot.exitCode;
  return runHooksCommand(args, { stdout: io.stdout, stderr: io.stderr, bundledDir: BUNDLED_HOOKS_DIR, home: boot.value.config.home, logger: silentLogger, cwd: io.cwd });
}
