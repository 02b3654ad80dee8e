import {
  answeredParts,
  checkSetupPart,
  clackPrompter,
  configUpdatesFor,
  configYamlPath,
  DEFAULT_PROBE_TIMEOUT_MS,
  readSetupContext,
  runSetupWizard,
  saveConfigYaml,
  shadowedSettingsNote,
  type FetchLike,
} from "@hermes/gateway";
import { booleanOption, EXIT_FAILED, EXIT_OK, EXIT_USAGE, type ParsedCommand } from "../cli/command-spec.js";
import { formatCommandHelp } from "../cli/usage.js";
import { answersFromFlags } from "./setup-flags.js";
import { SETUP_SPEC } from "./setup-spec.js";

export interface SetupIo {
  env: Record<string, string | undefined>;
  cwd: string;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  fetch?: FetchLike;
}

/** `hermes setup`: the wizard on a terminal, otherwise the options; 0 saved, 1 a check or the save failed, 2 usage. */
export async function runSetup(command: ParsedCommand, io: SetupIo): Promise<number> {
  const probe = { fetch: io.fetch ?? globalThis.fetch, timeoutMs: DEFAULT_PROBE_TIMEOUT_MS };
  const flags = answersFromFlags(command.values);
  if (!flags.ok) {
    io.stderr.write(`${flags.problem}\n\n${formatCommandHelp([], SETUP_SPEC)}\n`);
    return EXIT_USAGE;
  }
  if (!flags.given) {
    if (io.stdin.isTTY !== true || io.stdout.isTTY !== true) {
      io.stderr.write(`hermes setup asks its questions on a terminal; here, pass the values as options.\n\n${formatCommandHelp([], SETUP_SPEC)}\n`);
      return EXIT_USAGE;
    }
    const prompter = await clackPrompter({ input: io.stdin, output: io.stdout });
    const outcome = await runSetupWizard({ env: io.env, cwd: io.cwd, prompter, probe });
    return outcome.kind === "saved" ? EXIT_OK : EXIT_FAILED;
  }
  const parts = answeredParts(flags.answers);
  if (parts.length === 0) {
    io.stderr.write(`Nothing to set: pass at least one value, e.g. --model anthropic/claude-sonnet-4-5 --api-key … (hermes setup --help).\n`);
    return EXIT_USAGE;
  }
  const context = await readSetupContext(io);
  if (!booleanOption(command.values, "skip-checks")) {
    const results = await Promise.all(parts.map(async (part) => ({ part, result: await checkSetupPart(part, flags.answers, context, probe) })));
    for (const { part, result } of results) io.stdout.write(`${result.status === "fail" ? "FAIL" : result.status === "warn" ? "warn" : "ok  "}  ${part.padEnd(8)}  ${result.detail}\n`);
    if (results.some(({ result }) => result.status === "fail")) {
      io.stderr.write("Nothing was saved. Correct the values, or pass --skip-checks to save them unchecked.\n");
      return EXIT_FAILED;
    }
  }
  const file = await configYamlPath(io);
  const updates = configUpdatesFor(flags.answers);
  const saved = await saveConfigYaml(file, updates);
  if (!saved.ok) {
    io.stderr.write(`${saved.error}\n`);
    return EXIT_FAILED;
  }
  io.stdout.write(`Saved ${[...updates.keys()].filter((name) => updates.get(name) !== null).join(", ")} to ${file}.\n`);
  const shadowed = shadowedSettingsNote(updates, context);
  if (shadowed !== undefined) io.stderr.write(`note: ${shadowed}\n`);
  return EXIT_OK;
}
