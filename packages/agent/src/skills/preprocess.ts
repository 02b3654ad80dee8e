import { CappedOutput } from "../builtin-tools/capped-output.js";
import { runInProcessGroup } from "../builtin-tools/process-group.js";
import { scrubEnvironment } from "../builtin-tools/terminal-env.js";

/** `!`command`!` on one line: replaced by the command's output when inline shell is enabled. */
const INLINE_SHELL = /!`([^`\r\n]+)`!/g;
const SKILL_DIR_VARIABLE = "${HERMES_SKILL_DIR}";
const SESSION_ID_VARIABLE = "${HERMES_SESSION_ID}";

export const INLINE_SHELL_TIMEOUT_MS = 10_000;
export const INLINE_SHELL_MAX_OUTPUT_CHARS = 4_000;
const MAX_INLINE_COMMANDS = 20;

export type InlineShellOutcome = { ok: true; output: string } | { ok: false; error: string; output: string };

export interface InlineShellRequest {
  command: string;
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
}

export type InlineShellRunner = (request: InlineShellRequest) => Promise<InlineShellOutcome>;

export interface PreprocessOptions {
  skillDir: string;
  sessionId: string;
  /** Off unless the operator turned it on: a skill's text must not run commands on its own. */
  allowInlineShell: boolean;
  signal: AbortSignal;
  runShell?: InlineShellRunner;
  /** Environment the commands' environment is derived from (after scrubbing); defaults to process.env. */
  baseEnv?: Record<string, string | undefined>;
}

export interface PreprocessedSkill {
  text: string;
  inlineCommands: number;
  inlineCommandsRun: number;
}

/**
 * Tier 2 preprocessing: template variables first, then inline shell. Inside commands the variables are not
 * substituted as text but passed as environment variables of the same name, so `${HERMES_SKILL_DIR}` still works
 * in bash while a session id with shell syntax in it cannot become part of a command line.
 */
export async function preprocessSkillBody(body: string, options: PreprocessOptions): Promise<PreprocessedSkill> {
  const commands = [...body.matchAll(INLINE_SHELL)];
  const substitute = (text: string): string =>
    text.split(SKILL_DIR_VARIABLE).join(options.skillDir).split(SESSION_ID_VARIABLE).join(options.sessionId);

  if (commands.length === 0) return { text: substitute(body), inlineCommands: 0, inlineCommandsRun: 0 };
  if (!options.allowInlineShell) {
    const note =
      `\n\n[Note: this skill contains ${commands.length} inline shell ${commands.length === 1 ? "command" : "commands"} ` +
      "(!`…`!) that were left as written because inline shell is disabled. Run them yourself with a tool if you need " +
      "their output.]";
    return { text: substituteOutside(body, substitute) + note, inlineCommands: commands.length, inlineCommandsRun: 0 };
  }

  const runShell = options.runShell ?? runInlineShellCommand;
  const env = {
    ...scrubEnvironment(options.baseEnv ?? process.env),
    HERMES_SKILL_DIR: options.skillDir,
    HERMES_SESSION_ID: options.sessionId,
  };
  let text = "";
  let last = 0;
  let run = 0;
  for (const match of commands) {
    const start = match.index;
    text += substitute(body.slice(last, start));
    last = start + match[0].length;
    const command = match[1] ?? "";
    if (run >= MAX_INLINE_COMMANDS) {
      text += `[inline shell skipped: more than ${MAX_INLINE_COMMANDS} commands]`;
      continue;
    }
    run += 1;
    const outcome = await runShell({ command, cwd: options.skillDir, env, timeoutMs: INLINE_SHELL_TIMEOUT_MS, signal: options.signal });
    text += outcome.ok ? outcome.output.replace(/\s+$/, "") : `[inline shell failed: ${outcome.error}${outputSuffix(outcome.output)}]`;
  }
  text += substitute(body.slice(last));
  return { text, inlineCommands: commands.length, inlineCommandsRun: run };
}

/** Substitutes variables in prose but leaves the text of unrun commands exactly as the author wrote it. */
function substituteOutside(body: string, substitute: (text: string) => string): string {
  let text = "";
  let last = 0;
  for (const match of body.matchAll(INLINE_SHELL)) {
    text += substitute(body.slice(last, match.index)) + match[0];
    last = match.index + match[0].length;
  }
  return text + substitute(body.slice(last));
}

function outputSuffix(output: string): string {
  const trimmed = output.trim();
  return trimmed === "" ? "" : `: ${trimmed}`;
}

/** Default runner: bash in its own process group, killed with everything it started on timeout or abort. */
export async function runInlineShellCommand(request: InlineShellRequest): Promise<InlineShellOutcome> {
  const output = new CappedOutput(INLINE_SHELL_MAX_OUTPUT_CHARS);
  const outcome = await runInProcessGroup({
    shell: "/bin/bash",
    command: request.command,
    cwd: request.cwd,
    env: request.env,
    timeoutMs: request.timeoutMs,
    signal: request.signal,
    onOutput: (chunk) => output.append(chunk),
  });
  const text = output.render();
  if (outcome.kind === "spawn-failed") return { ok: false, error: `could not start: ${outcome.message}`, output: "" };
  if (outcome.stoppedBy === "timeout") return { ok: false, error: `timed out after ${request.timeoutMs / 1000}s`, output: text };
  if (outcome.stoppedBy === "abort") return { ok: false, error: "cancelled", output: text };
  if (outcome.exitCode !== 0) {
    const how = outcome.exitCode === null ? `killed by ${outcome.exitSignal ?? "a signal"}` : `exit code ${outcome.exitCode}`;
    return { ok: false, error: how, output: text };
  }
  return { ok: true, output: text };
}
