import { Type } from "@sinclair/typebox";
import { defineTool, type AnyToolDefinition, type ToolResult } from "../tools/types.js";
import { fsFailure, toolError } from "./fs-errors.js";
import { compileGlob } from "./glob.js";
import { runSearchInWorker, type SearchRun, type SearchRunOptions } from "./search-files-runner.js";
import { MAX_TESTED_LINE_CHARS, type SearchJob, type SearchOutcome } from "./search-files-scan.js";
import { resolveInWorkspace, type Workspace } from "./workspace.js";

const DEFAULT_MAX_RESULTS = 50;
const MAX_RESULTS = 500;
const DEFAULT_TIME_LIMIT_MS = 20_000;

const SearchFilesParameters = Type.Object({
  pattern: Type.String({ minLength: 1, description: "Regular expression (or literal text when regex is false)." }),
  path: Type.Optional(Type.String({ description: "Folder to search, relative to the workspace root (default: root)." })),
  target: Type.Optional(
    Type.Union([Type.Literal("content"), Type.Literal("files")], {
      description: '"content" searches inside files (default); "files" matches file paths.',
    }),
  ),
  glob: Type.Optional(
    Type.String({ description: "Only files whose path matches this glob, e.g. *.ts or src/**/*.{js,ts}." }),
  ),
  regex: Type.Optional(Type.Boolean({ description: "Treat pattern as a regular expression (default true)." })),
  case_sensitive: Type.Optional(Type.Boolean({ description: "Match case exactly (default false)." })),
  max_results: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_RESULTS, description: `Most results to return (default ${DEFAULT_MAX_RESULTS}).` }),
  ),
});

export interface SearchFilesOptions {
  /** A search still running after this long is stopped, whatever the caller's own deadline (default 20 s). */
  timeLimitMs?: number;
  startWorker?: SearchRunOptions["startWorker"];
}

export function searchFilesTool(ws: Workspace, options: SearchFilesOptions = {}): AnyToolDefinition {
  const timeLimitMs = options.timeLimitMs ?? DEFAULT_TIME_LIMIT_MS;
  return defineTool({
    name: "search_files",
    description:
      "Search the workspace: find lines matching a regular expression (target \"content\", results as " +
      "`path:line: text`) or find files whose path matches (target \"files\"). Skips .git, node_modules, binary " +
      `files and files over 2 MB; lines longer than ${MAX_TESTED_LINE_CHARS} characters are searched on their start.`,
    parameters: SearchFilesParameters,
    concurrency: "parallel-safe",
    guidance:
      "Use search_files to locate code or text before reading: search content for an identifier or message, or " +
      "use target \"files\" to find files by name. Patterns are case-insensitive regular expressions by default; " +
      "set regex to false to search for literal text containing symbols such as ( or [. Narrow large searches with " +
      "path and glob (a glob without / matches file names, e.g. *.ts; with / it matches the path relative to the " +
      "searched folder, as does the pattern in \"files\" mode). Symbolic links are not followed.",
    handler: async (args, context): Promise<ToolResult> => {
      const resolved = await resolveInWorkspace(ws, args.path ?? ".", "read", { sessionId: context.sessionId });
      if (!resolved.ok) return toolError(resolved.error);

      const pattern = compilePattern(args.pattern, args.regex !== false, args.case_sensitive === true);
      if (!pattern.ok) return toolError(pattern.error);
      if (args.glob !== undefined && args.glob !== "") {
        const glob = compileGlob(args.glob);
        if (!glob.ok) return toolError(glob.error);
      }
      if (context.signal.aborted) return toolError("Search cancelled after scanning 0 files.", { matches: 0 });

      const job: SearchJob = {
        folder: resolved.path,
        folderDisplay: resolved.display,
        patternSource: pattern.source,
        patternFlags: pattern.flags,
        target: args.target ?? "content",
        glob: args.glob,
        maxResults: Math.min(Math.max(1, Math.floor(args.max_results ?? DEFAULT_MAX_RESULTS)), MAX_RESULTS),
      };
      const run = await runSearchInWorker(job, {
        signal: context.signal,
        timeLimitMs,
        startWorker: options.startWorker,
      });
      if (run.kind === "failed") return fsFailure({ code: run.code }, resolved.display);
      if (run.kind === "stopped") return stoppedResult(run, timeLimitMs);
      return renderOutcome(job, args.pattern, run.outcome);
    },
  });
}

/** Compiling is cheap and cannot hang; it happens here so a malformed pattern is reported before a worker starts. */
function compilePattern(
  pattern: string,
  isRegex: boolean,
  caseSensitive: boolean,
): { ok: true; source: string; flags: string } | { ok: false; error: string } {
  const source = isRegex ? pattern : pattern.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  const flags = caseSensitive ? "" : "i";
  try {
    new RegExp(source, flags);
    return { ok: true, source, flags };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, error: `Invalid regular expression: ${reason}. Set regex to false to search for literal text.` };
  }
}

function stoppedResult(run: SearchRun & { kind: "stopped" }, timeLimitMs: number): ToolResult {
  const when =
    run.why === "time-limit" ? `it was still running after ${Math.round(timeLimitMs / 1000)} s` : "the call was cut short";
  return toolError(
    `search stopped: the pattern took too long — simplify the regex (${when}; ${run.filesScanned} files scanned, ` +
      `${run.hits.length} matches found so far). Avoid nested repetition such as (a+)+, and narrow path or glob.`,
    { matches: run.hits.length, filesScanned: run.filesScanned, stopped: run.why },
  );
}

function renderOutcome(job: SearchJob, pattern: string, outcome: SearchOutcome): ToolResult {
  const details = {
    matches: outcome.hits.length,
    filesScanned: outcome.filesScanned,
    truncated: outcome.more,
    longLinesCut: outcome.longLinesCut,
  };
  if (outcome.hits.length === 0) {
    const what = job.target === "files" ? "No files match" : "No matches for";
    return {
      content: `${what} ${JSON.stringify(pattern)} in ${job.folderDisplay} (${outcome.filesScanned} files checked).`,
      details,
    };
  }
  const lines = [...outcome.hits];
  if (outcome.more) {
    lines.push(
      `[More results not shown: stopped after ${job.maxResults}. Narrow the pattern, path or glob, ` +
        `or raise max_results (up to ${MAX_RESULTS}).]`,
    );
  }
  return { content: lines.join("\n"), details };
}
