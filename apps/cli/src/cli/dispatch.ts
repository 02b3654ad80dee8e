import { EXIT_OK, EXIT_USAGE, type Invocation } from "./command-spec.js";
import { COMMANDS, entryName, type CliIo, type CommandEntry } from "./command-table.js";
import { parseCommandArgs, parseGroupArgs, printable } from "./parse-command-line.js";
import { settle } from "./settle.js";
import { formatTableHelp } from "./usage.js";
import { versionLine } from "./version.js";

const FOOTER = "Exit codes: 0 ok, 1 an operation or check failed, 2 usage or configuration error.\nConfiguration comes from the environment, a .env file, or $HERMES_HOME/config.yaml (see README.md).";

export function topLevelHelp(): string {
  const rows = COMMANDS.map((entry) =>
    entry.kind === "command"
      ? { name: [entry.spec.name, entry.spec.args, entry.spec.options ? "[options]" : undefined].filter(Boolean).join(" "), summary: entry.spec.summary }
      : { name: `${entry.group.name} ${entry.group.subcommands.map((spec) => spec.name).join("|")}`, summary: entry.group.summary },
  );
  return formatTableHelp([...rows, { name: "help [command]", summary: "show this text, or a command's help" }], FOOTER);
}

/** The whole `hermes` command line → exit code. */
export async function dispatch(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h") return print(io, topLevelHelp());
  if (name === "--version" || name === "-V") return print(io, versionLine());
  if (name === "help") return rest.length === 0 ? print(io, topLevelHelp()) : settle(invocationFor(rest, true), io, () => Promise.resolve(EXIT_USAGE));
  const entry = COMMANDS.find((candidate) => entryName(candidate) === name);
  if (!entry) {
    io.stderr.write(`Unknown command ${JSON.stringify(printable(name))}.\n\n${topLevelHelp()}\n`);
    return EXIT_USAGE;
  }
  return settle(parseEntry(entry, rest), io, (command) => entry.run(command, io));
}

/** `hermes help <command> [subcommand]` is the same as `hermes <command> [subcommand] --help`. */
function invocationFor(words: readonly string[], help: boolean): Invocation {
  const [name, ...rest] = words;
  const entry = COMMANDS.find((candidate) => entryName(candidate) === name);
  if (!entry) return { kind: "usage-error", message: `Unknown command ${JSON.stringify(printable(name ?? ""))}.`, usage: topLevelHelp() };
  if (entry.kind === "group" && rest.length === 0) return parseGroupArgs(entry.group, ["help"]);
  return parseEntry(entry, help ? [...rest, "--help"] : rest);
}

function parseEntry(entry: CommandEntry, args: readonly string[]): Invocation {
  return entry.kind === "command" ? parseCommandArgs([], entry.spec, args) : parseGroupArgs(entry.group, args);
}

function print(io: CliIo, text: string): number {
  io.stdout.write(`${text}\n`);
  return EXIT_OK;
}
