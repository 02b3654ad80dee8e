import { fileMemoryStorage, silentLogger, type Logger, type MemoryStorage } from "@hermes/agent";
import { BUNDLED_HOOKS_DIR, PairingService, bootstrap, groupChatsOf, memoryStorageOf, openConfiguredStore, reportIssue, type GatewayConfig } from "@hermes/gateway";
import type { Store } from "@hermes/store";
import type { ParsedCommand } from "./cli/command-spec.js";
import { executeCronCommand } from "./cron/cron-command.js";
import { executeHooksCommand } from "./hooks/hooks-command.js";
import { withSharedHookState } from "./hooks/hooks-shared-state.js";
import { executeMemoryCommand } from "./memory/memory-command.js";
import { executePairingCommand } from "./pairing/pairing-command.js";
import { executeSessionsCommand } from "./sessions/sessions-command.js";

export interface OperatorIo {
  env: Record<string, string | undefined>;
  cwd: string;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** Runs an operator command against the state database the gateway uses, closing it afterwards. */
async function withStateStore(io: OperatorIo, run: (store: Store, logger: Logger, config: GatewayConfig) => Promise<number>): Promise<number> {
  const boot = await bootstrap({ env: io.env, cwd: io.cwd, stderr: io.stderr, logName: "cli", traces: false });
  if (!boot.ok) return boot.exitCode;
  const { config, logger } = boot.value;
  const opened = await openConfiguredStore(config, logger);
  if (!opened.ok) return reportIssue(io.stderr, opened.issue);
  try {
    return await run(opened.store, logger, config);
  } finally {
    await opened.store.close();
  }
}

/** `hermes pairing …`: approve, list and revoke users. */
export function pairingCommand(command: ParsedCommand, io: OperatorIo): Promise<number> {
  return withStateStore(io, (store, logger) =>
    executePairingCommand(command, {
      stdout: io.stdout,
      stderr: io.stderr,
      // The approval notice goes through the outbox: the running gateway, not this process, holds the connections.
      service: new PairingService({ store: store.pairing, notices: store.deliveries, logger }),
    }),
  );
}

/** `hermes cron …`: list and remove scheduled tasks; the running gateway sees a removal at its next look. */
export function cronCommand(command: ParsedCommand, io: OperatorIo): Promise<number> {
  return withStateStore(io, (store) => executeCronCommand(command, { stdout: io.stdout, stderr: io.stderr, store }));
}

/** `hermes sessions …`: list and read conversations. */
export function sessionsCommand(command: ParsedCommand, io: OperatorIo): Promise<number> {
  return withStateStore(io, (store) => executeSessionsCommand(command, { stdout: io.stdout, stderr: io.stderr, store }));
}

/**
 * `hermes memory …`: show or erase what the bot keeps about one person; forget asks the state database where they
 * talked. With HERMES_DATABASE_URL the entries are the database's, so show opens it too.
 */
export async function memoryCommand(command: ParsedCommand, io: OperatorIo): Promise<number> {
  const memoryIo = (config: GatewayConfig, logger: Logger, storage: MemoryStorage, groupChats: (platform: string, userId: string) => Promise<string[]>) => ({
    stdout: io.stdout,
    stderr: io.stderr,
    home: config.home,
    memoryDir: config.paths.memory,
    storage,
    logger,
    memoryScope: config.memoryScope,
    groupChatsOf: groupChats,
  });
  const boot = await bootstrap({ env: io.env, cwd: io.cwd, stderr: io.stderr, logName: "cli", traces: false });
  if (!boot.ok) return boot.exitCode;
  if (command.spec.name !== "forget" && boot.value.config.databaseUrl === undefined) {
    return executeMemoryCommand(command, memoryIo(boot.value.config, boot.value.logger, fileMemoryStorage(boot.value.config.paths.memory), async () => []));
  }
  return withStateStore(io, (store, logger, config) =>
    executeMemoryCommand(command, memoryIo(config, logger, memoryStorageOf(config, store), (platform, userId) => groupChatsOf(store, platform, userId))),
  );
}

/**
 * `hermes hooks …`: list, enable, disable, install and test hooks; the running gateway picks changes up by itself. With
 * HERMES_DATABASE_URL the enable state is the database's (hooks-shared-state.ts).
 */
export async function hooksCommand(command: ParsedCommand, io: OperatorIo): Promise<number> {
  const boot = await bootstrap({ env: io.env, cwd: io.cwd, stderr: io.stderr, logName: "cli", traces: false });
  if (!boot.ok) return boot.exitCode;
  const home = boot.value.config.home;
  const execute = (): Promise<number> => executeHooksCommand(command, { stdout: io.stdout, stderr: io.stderr, bundledDir: BUNDLED_HOOKS_DIR, home, logger: silentLogger, cwd: io.cwd });
  if (boot.value.config.databaseUrl === undefined) return execute();
  const changesState = command.spec.name === "enable" || command.spec.name === "disable";
  return withStateStore(io, (store, logger) => withSharedHookState({ files: store.sharedFiles, home, stderr: io.stderr, logger }, changesState, execute));
}
