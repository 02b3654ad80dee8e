import { parseArgs, type ParseArgsConfig } from "node:util";
import type { CommandSpec, GroupSpec, Invocation } from "./command-spec.js";
import { formatCommandHelp, formatGroupHelp } from "./usage.js";

const HELP_WORDS: ReadonlySet<string> = new Set(["help", "--help", "-h"]);

/** Whether `--help`/`-h` appears among the options (not after `--`): it wins over every other problem. */
export function asksForHelp(args: readonly string[]): boolean {
  for (const arg of args) {
    if (arg === "--") return false;
    if (arg === "--help" || arg === "-h") return true;
  }
  return false;
}

/** Parses one command's arguments with node:util `parseArgs` (strict) and checks the number of positionals. */
export function parseCommandArgs(prefix: readonly string[], spec: CommandSpec, args: readonly string[]): Invocation {
  const help = formatCommandHelp(prefix, spec);
  if (asksForHelp(args)) return { kind: "help", text: help };
  const options: NonNullable<ParseArgsConfig["options"]> = {};
  for (const [name, option] of Object.entries(spec.options ?? {})) {
    options[name] = option.short ? { type: option.type, short: option.short } : { type: option.type };
  }
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...args], options, strict: true, allowPositionals: true });
  } catch (error) {
    return { kind: "usage-error", message: describeParseError(error), usage: help };
  }
  const [min, max] = spec.positionals;
  const count = parsed.positionals.length;
  const shown = [...prefix, spec.name].join(" ");
  if (count < min) return { kind: "usage-error", message: `Missing argument: hermes ${shown} ${spec.args ?? ""}`.trimEnd(), usage: help };
  if (count > max) return { kind: "usage-error", message: `Unexpected argument ${JSON.stringify(parsed.positionals[max] ?? "")}.`, usage: help };
  const values: Record<string, string | boolean | undefined> = {};
  for (const [name, value] of Object.entries(parsed.values)) {
    if (typeof value === "string" || typeof value === "boolean") values[name] = value;
  }
  return { kind: "run", command: { path: [...prefix, spec.name], spec, values, positionals: parsed.positionals } };
}

/** `hermes <group> <command> …`: picks the subcommand, then parses its arguments. */
export function parseGroupArgs(group: GroupSpec, args: readonly string[]): Invocation {
  const usage = formatGroupHelp(group);
  const [name, ...rest] = args;
  if (name === undefined) return { kind: "usage-error", message: `Missing ${group.name} command.`, usage };
  if (HELP_WORDS.has(name)) return { kind: "help", text: usage };
  const spec = group.subcommands.find((candidate) => candidate.name === name);
  if (!spec) return { kind: "usage-error", message: `Unknown ${group.name} command ${JSON.stringify(printable(name))}.`, usage };
  const parsed = parseCommandArgs([group.name], spec, rest);
  // A wrong subcommand line shows the whole group's usage, which lists every subcommand's arguments.
  return parsed.kind === "usage-error" ? { ...parsed, usage } : parsed;
}

function describeParseError(error: unknown): string {
  if (!(error instanceof TypeError)) return String(error);
  const code = (error as TypeError & { code?: string }).code;
  const option = /'(?:-\w, )?(-[^' ]+)/.exec(error.message)?.[1];
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") return `Unknown option ${option ?? error.message}.`;
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    return /argument missing/.test(error.message) ? `${option ?? "The option"} needs a value.` : `${option ?? "The option"} takes no value.`;
  }
  return error.message;
}

// Arguments are echoed back in messages; terminal escapes in them must not reach the terminal.
export function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, "?");
}
