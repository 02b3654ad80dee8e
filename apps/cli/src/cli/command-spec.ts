/**
 * What the `hermes` command line accepts, as plain data: usage, help and argument checks are derived from it without
 * loading any command's implementation, so `--help` stays fast and touches nothing.
 */
export interface OptionSpec {
  readonly type: "string" | "boolean";
  readonly short?: string;
  /** Shown after a string option, e.g. `--limit N`. */
  readonly placeholder?: string;
  readonly description: string;
}

export interface CommandSpec {
  readonly name: string;
  readonly summary: string;
  /** Positional arguments as shown in the usage line, e.g. `<platform> <code>`. */
  readonly args?: string;
  /** Smallest and largest number of positional arguments. */
  readonly positionals: readonly [min: number, max: number];
  readonly options?: Readonly<Record<string, OptionSpec>>;
  /** More text printed by `--help`, after the options. */
  readonly details?: string;
}

export interface GroupSpec {
  readonly name: string;
  readonly summary: string;
  readonly subcommands: readonly CommandSpec[];
  readonly details?: string;
}

export type OptionValues = Readonly<Record<string, string | boolean | undefined>>;

/** A command line that names a command and fits its shape. */
export interface ParsedCommand {
  /** `["hooks", "list"]`, `["doctor"]`. */
  readonly path: readonly string[];
  readonly spec: CommandSpec;
  readonly values: OptionValues;
  readonly positionals: readonly string[];
}

export type Invocation =
  | { readonly kind: "help"; readonly text: string }
  | { readonly kind: "usage-error"; readonly message: string; readonly usage: string }
  | { readonly kind: "run"; readonly command: ParsedCommand };

/** Process exit codes, the same for every command (README "Operator CLI"). */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

export function stringOption(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === "string" ? value : undefined;
}

export function booleanOption(values: OptionValues, name: string): boolean {
  return values[name] === true;
}
