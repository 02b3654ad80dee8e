import { CRON_GROUP } from "../cron/cron-spec.js";
import { DB_GROUP } from "../db/db-spec.js";
import { HOOKS_GROUP } from "../hooks/hooks-spec.js";
import { MCP_GROUP } from "../mcp/mcp-spec.js";
import { MEMORY_GROUP } from "../memory/memory-spec.js";
import { PAIRING_GROUP } from "../pairing/pairing-spec.js";
import { SESSIONS_GROUP } from "../sessions/sessions-spec.js";
import { SETUP_SPEC } from "../setup/setup-spec.js";
import { booleanOption, type CommandSpec, type GroupSpec, type ParsedCommand } from "./command-spec.js";

export interface CliIo {
  env: Record<string, string | undefined>;
  cwd: string;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

type Run = (command: ParsedCommand, io: CliIo) => Promise<number>;

export type CommandEntry = { readonly kind: "command"; readonly spec: CommandSpec; readonly run: Run } | { readonly kind: "group"; readonly group: GroupSpec; readonly run: Run };

const json = { type: "boolean", description: "print JSON only (nothing else on stdout)" } as const;

/**
 * Every `hermes` command. Implementations are imported only when their command runs: `--help` loads nothing but this
 * table, so it is fast and cannot create state, read configuration or open a database.
 */
export const COMMANDS: readonly CommandEntry[] = [
  {
    kind: "command",
    spec: { name: "chat", positionals: [0, 0], summary: "talk to the bot in this terminal (one message per line when stdin is not a terminal)" },
    run: async (_command, io) => {
      const { runChat } = await import("../chat/run-chat.js");
      return runChat({ env: io.env, cwd: io.cwd, input: io.stdin, output: io.stdout, errors: io.stderr });
    },
  },
  {
    kind: "command",
    spec: SETUP_SPEC,
    run: async (command, io) => (await import("../setup/setup-command.js")).runSetup(command, io),
  },
  {
    kind: "command",
    spec: {
      name: "status",
      positionals: [0, 0],
      options: { json },
      summary: "ask the running gateway whether it is ready (its /readyz): each check and platform",
      details: "Exit 0 when the gateway is ready, 1 when it is not ready or no gateway answers.",
    },
    run: async (command, io) => (await import("../status/status-command.js")).runStatus(io, { json: booleanOption(command.values, "json") }),
  },
  {
    kind: "command",
    spec: {
      name: "doctor",
      positionals: [0, 0],
      options: { json },
      summary: "check configuration, state database, HTTP port, model, platform tokens, Redis and hooks, online",
      details:
        "Checks: config, store, http, model, telegram, discord, slack, redis, hooks; each is ok, warn or fail.\nExit 0 when nothing failed, 1 otherwise. --json prints {\"ok\":…,\"checks\":[{\"name\",\"status\",\"detail\"}]}.",
    },
    run: async (command, io) => (await import("../doctor/doctor-command.js")).runDoctor(io, { json: booleanOption(command.values, "json") }),
  },
  { kind: "group", group: PAIRING_GROUP, run: async (command, io) => (await import("../operator-commands.js")).pairingCommand(command, io) },
  { kind: "group", group: HOOKS_GROUP, run: async (command, io) => (await import("../operator-commands.js")).hooksCommand(command, io) },
  { kind: "group", group: SESSIONS_GROUP, run: async (command, io) => (await import("../operator-commands.js")).sessionsCommand(command, io) },
  { kind: "group", group: MEMORY_GROUP, run: async (command, io) => (await import("../operator-commands.js")).memoryCommand(command, io) },
  { kind: "group", group: DB_GROUP, run: async (command, io) => (await import("../db/db-command.js")).dbCommand(command, io) },
  { kind: "group", group: CRON_GROUP, run: async (command, io) => (await import("../operator-commands.js")).cronCommand(command, io) },
  { kind: "group", group: MCP_GROUP, run: async (command, io) => (await import("../mcp/mcp-run.js")).mcpCommand(command, io) },
];

export function entryName(entry: CommandEntry): string {
  return entry.kind === "command" ? entry.spec.name : entry.group.name;
}
