import { installHook } from "./hooks-install.js";
import { EXIT_OK, EXIT_USAGE, type HooksCommandIo } from "./hooks-io.js";
import { listHooks } from "./hooks-list.js";
import { setHookEnabled } from "./hooks-toggle.js";
import { tryHook } from "./hooks-try.js";

export type { HooksCommandIo, TextSink } from "./hooks-io.js";

export const HOOKS_USAGE = `Usage: hermes hooks <command>

Commands:
  list [--json]                  show every hook: enabled or not, bundled or yours, its events and any problem
  enable <name>                  turn a hook on  (a running gateway applies it without a restart)
  disable <name>                 turn a hook off (likewise)
  install <folder> [--force]     check a hook folder and copy it to $HERMES_HOME/hooks/<name>/
  test <name> [event-type]       send the hook a sample event and show its result and the time it took

A hook is a folder with HOOK.yaml and handler.js, handler.mjs or handler.ts. Yours live in $HERMES_HOME/hooks/
and replace a bundled hook of the same name.`;

interface ParsedArgs {
  positional: string[];
  flags: Set<string>;
}

/** `hermes hooks …`; returns the exit code: 0 done, 1 failed, 2 wrong command line. */
export async function runHooksCommand(args: readonly string[], io: HooksCommandIo): Promise<number> {
  const [subcommand, ...rest] = args;
  const parsed = parseArgs(rest);
  switch (subcommand) {
    case "list":
      return withShape(io, parsed, { positional: [0, 0], flags: ["--json"] }) ?? listHooks(io, { json: parsed.flags.has("--json") });
    case "enable":
    case "disable":
      return withShape(io, parsed, { positional: [1, 1], flags: [] }) ?? setHookEnabled(io, at(parsed, 0), subcommand === "enable");
    case "install":
      return withShape(io, parsed, { positional: [1, 1], flags: ["--force"] }) ?? installHook(io, at(parsed, 0), { force: parsed.flags.has("--force") });
    case "test":
      return withShape(io, parsed, { positional: [1, 2], flags: [] }) ?? tryHook(io, at(parsed, 0), parsed.positional[1]);
    case "help":
    case "--help":
    case "-h":
      io.stdout.write(`${HOOKS_USAGE}\n`);
      return EXIT_OK;
    case undefined:
      return usageError(io, "Missing hooks command.");
    default:
      return usageError(io, `Unknown hooks command "${subcommand}".`);
  }
}

function parseArgs(args: readonly string[]): ParsedArgs {
  const positional: string[] = [];
  const flags = new Set<string>();
  let onlyPositional = false;
  for (const arg of args) {
    if (onlyPositional || !arg.startsWith("-") || arg === "-") positional.push(arg);
    else if (arg === "--") onlyPositional = true;
    else flags.add(arg);
  }
  return { positional, flags };
}

/** The exit code of a usage error when the arguments do not fit, undefined when they do. */
function withShape(io: HooksCommandIo, parsed: ParsedArgs, shape: { positional: [number, number]; flags: string[] }): number | undefined {
  const unknown = [...parsed.flags].filter((flag) => !shape.flags.includes(flag));
  if (unknown.length > 0) return usageError(io, `Unknown option ${unknown.join(", ")}.`);
  const [min, max] = shape.positional;
  if (parsed.positional.length < min) return usageError(io, "Missing argument.");
  if (parsed.positional.length > max) return usageError(io, `Unexpected argument "${parsed.positional[max] ?? ""}".`);
  return undefined;
}

function at(parsed: ParsedArgs, index: number): string {
  return parsed.positional[index] ?? "";
}

function usageError(io: HooksCommandIo, message: string): number {
  io.stderr.write(`${message}\n\n${HOOKS_USAGE}\n`);
  return EXIT_USAGE;
}
