import { booleanOption, type ParsedCommand } from "../cli/command-spec.js";
import { parseGroupArgs } from "../cli/parse-command-line.js";
import { settle } from "../cli/settle.js";
import { formatGroupHelp } from "../cli/usage.js";
import { installHook } from "./hooks-install.js";
import type { HooksCommandIo } from "./hooks-io.js";
import { listHooks } from "./hooks-list.js";
import { HOOKS_GROUP } from "./hooks-spec.js";
import { setHookEnabled } from "./hooks-toggle.js";
import { tryHook } from "./hooks-try.js";

export type { HooksCommandIo, TextSink } from "./hooks-io.js";

export const HOOKS_USAGE = formatGroupHelp(HOOKS_GROUP);

/** `hermes hooks …` from its arguments; returns the exit code: 0 done, 1 failed, 2 wrong command line. */
export function runHooksCommand(args: readonly string[], io: HooksCommandIo): Promise<number> {
  return settle(parseGroupArgs(HOOKS_GROUP, args), io, (command) => executeHooksCommand(command, io));
}

/** Runs a `hermes hooks` command line that already fits `HOOKS_GROUP`. */
export function executeHooksCommand(command: ParsedCommand, io: HooksCommandIo): Promise<number> {
  const first = command.positionals[0] ?? "";
  switch (command.spec.name) {
    case "list":
      return listHooks(io, { json: booleanOption(command.values, "json") });
    case "enable":
    case "disable":
      return setHookEnabled(io, first, command.spec.name === "enable");
    case "install":
      return installHook(io, first, { force: booleanOption(command.values, "force") });
    default:
      return tryHook(io, first, command.positionals[1]);
  }
}
