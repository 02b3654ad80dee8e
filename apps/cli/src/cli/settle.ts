import { EXIT_OK, EXIT_USAGE, type Invocation, type ParsedCommand } from "./command-spec.js";

export interface CliOutput {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** Help goes to stdout with exit 0, a usage error to stderr with exit 2; only a well-formed command line runs. */
export async function settle(invocation: Invocation, io: CliOutput, run: (command: ParsedCommand) => Promise<number>): Promise<number> {
  if (invocation.kind === "help") {
    io.stdout.write(`${invocation.text}\n`);
    return EXIT_OK;
  }
  if (invocation.kind === "usage-error") {
    io.stderr.write(`${invocation.message}\n\n${invocation.usage}\n`);
    return EXIT_USAGE;
  }
  return run(invocation.command);
}
