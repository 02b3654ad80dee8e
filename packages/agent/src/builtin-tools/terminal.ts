import { promises as fs } from "node:fs";
import { Type } from "@sinclair/typebox";
import { defineTool, type AnyToolDefinition, type ToolResult } from "../tools/types.js";
import { CappedOutput } from "./capped-output.js";
import { runInProcessGroup, type ProcessGroupOutcome } from "./process-group.js";
import { scrubEnvironment } from "./terminal-env.js";
import { resolveInWorkspace, type Workspace } from "./workspace.js";

export interface TerminalOptions {
  workspace: Workspace;
  defaultTimeoutMs?: number;
  maxTimeoutMs?: number;
  maxOutputChars?: number;
  /** Environment the command's environment is derived from (after scrubbing); defaults to process.env. */
  baseEnv?: Record<string, string | undefined>;
  shell?: string;
  /** Clock for `durationMs`. */
  now?: () => number;
}

// Room for the kill grace and output draining, so the registry's own timeout never pre-empts ours.
const REGISTRY_TIMEOUT_MARGIN_MS = 30_000;

export function terminalTool(options: TerminalOptions): AnyToolDefinition {
  const defaultTimeoutMs = options.defaultTimeoutMs ?? 60_000;
  const maxTimeoutMs = options.maxTimeoutMs ?? 600_000;
  const maxOutputChars = options.maxOutputChars ?? 50_000;
  const shell = options.shell ?? "/bin/bash";
  const now = options.now ?? Date.now;
  const env = scrubEnvironment(options.baseEnv ?? process.env);

  const parameters = Type.Object({
    command: Type.String({ minLength: 1, description: "Shell command line to run (bash -c)." }),
    timeout_s: Type.Optional(
      Type.Number({
        minimum: 0.1,
        description: `Seconds before the command is killed (default ${defaultTimeoutMs / 1000}, max ${maxTimeoutMs / 1000}).`,
      }),
    ),
    cwd: Type.Optional(
      Type.String({ description: "Working directory relative to the workspace root (default: the root)." }),
    ),
  });

  return defineTool({
    name: "terminal",
    description:
      "Run a shell command in the workspace and return its combined stdout/stderr and exit code. Non-interactive: " +
      "stdin is closed, and the command is killed with everything it started when the timeout passes.",
    guidance:
      "Use terminal for builds, tests, git, package managers and other programs; prefer the file tools for reading " +
      "and editing files. Commands run non-interactively in a fresh shell each time (no state carries over, so " +
      "chain steps with && and pass cwd instead of relying on cd), with credentials removed from the environment. " +
      "Pass flags that avoid prompts (-y, --no-pager), raise timeout_s for long builds, and redirect output of " +
      "background processes to a file (cmd > log 2>&1 &) so the call can return. A non-zero exit code is a normal " +
      "result to read, not a tool failure.",
    parameters,
    concurrency: "never-parallel",
    timeoutMs: maxTimeoutMs + REGISTRY_TIMEOUT_MARGIN_MS,
    handler: async (args, context): Promise<ToolResult> => {
      const cwd = await resolveWorkingDirectory(options.workspace, args.cwd);
      if (!cwd.ok) return { content: cwd.error, isError: true, details: { exitCode: null, timedOut: false, durationMs: 0 } };

      const timeoutMs = Math.min(args.timeout_s === undefined ? defaultTimeoutMs : args.timeout_s * 1000, maxTimeoutMs);
      const output = new CappedOutput(maxOutputChars);
      const startedAt = now();
      const outcome = await runInProcessGroup({
        shell,
        command: args.command,
        cwd: cwd.path,
        env,
        timeoutMs,
        signal: context.signal,
        onOutput: (text) => output.append(text),
      });
      const durationMs = now() - startedAt;
      return describeOutcome(outcome, output, timeoutMs, { durationMs, cwd: cwd.display, outputChars: output.totalChars });
    },
  });
}

type WorkingDirectory = { ok: true; path: string; display: string } | { ok: false; error: string };

// "write" access: commands usually change files, and a read-only folder must not look like a place to do that.
async function resolveWorkingDirectory(workspace: Workspace, requested: string | undefined): Promise<WorkingDirectory> {
  const resolved = await resolveInWorkspace(workspace, requested === undefined || requested.trim() === "" ? "." : requested, "write");
  if (!resolved.ok) return resolved;
  const stat = await fs.stat(resolved.path).catch(() => undefined);
  if (stat === undefined) return { ok: false, error: `Working directory ${JSON.stringify(resolved.display)} does not exist.` };
  if (!stat.isDirectory()) return { ok: false, error: `Working directory ${JSON.stringify(resolved.display)} is not a directory.` };
  return { ok: true, path: resolved.path, display: resolved.display };
}

function describeOutcome(
  outcome: ProcessGroupOutcome,
  output: CappedOutput,
  timeoutMs: number,
  extra: { durationMs: number; cwd: string; outputChars: number },
): ToolResult {
  if (outcome.kind === "spawn-failed") {
    return {
      content: `failed to start the command: ${outcome.message}`,
      isError: true,
      details: { exitCode: null, timedOut: false, ...extra },
    };
  }

  const text = output.render().replace(/\n$/, "");
  const body = text === "" ? "(no output)" : text;
  const timedOut = outcome.stoppedBy === "timeout";
  const details = { exitCode: outcome.exitCode, timedOut, ...extra, signal: outcome.exitSignal };

  const notes: string[] = [];
  if (outcome.stoppedBy !== undefined) {
    notes.push("[the command and its process group were killed]");
    notes.push(timedOut ? `timed out after ${timeoutMs / 1000}s` : "cancelled");
    return { content: `${body}\n\n${notes.join("\n")}`, isError: true, details };
  }
  if (outcome.outputAbandoned) {
    notes.push("[background processes are still running; their further output is not captured]");
  }
  notes.push(
    outcome.exitCode === null ? `killed by signal ${outcome.exitSignal ?? "unknown"}` : `exit code: ${outcome.exitCode}`,
  );
  return { content: `${body}\n\n${notes.join("\n")}`, isError: false, details };
}
