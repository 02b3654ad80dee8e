import { promises as fs } from "node:fs";
import path from "node:path";
import { Type } from "@sinclair/typebox";
import { defineTool, type AnyToolDefinition, type ToolResult } from "../tools/types.js";
import { fsFailure, toolError } from "./fs-errors.js";
import { compileGlob } from "./glob.js";
import { looksBinary, splitLines } from "./text-file.js";
import { DEFAULT_SKIPPED_DIRECTORIES, walkTree, type WalkEntry } from "./walk.js";
import { resolveInWorkspace, type Workspace } from "./workspace.js";

const DEFAULT_MAX_RESULTS = 50;
const MAX_RESULTS = 500;
const MAX_SEARCHED_FILE_BYTES = 2 * 1024 * 1024;
const MAX_HIT_TEXT_CHARS = 300;

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

interface SearchPlan {
  folder: string;
  folderDisplay: string;
  matcher: RegExp;
  target: "content" | "files";
  acceptsPath: (relativePath: string) => boolean;
  maxResults: number;
  signal: AbortSignal;
}

interface SearchOutcome {
  hits: string[];
  filesScanned: number;
  more: boolean;
}

export function searchFilesTool(ws: Workspace): AnyToolDefinition {
  return defineTool({
    name: "search_files",
    description:
      "Search the workspace: find lines matching a regular expression (target \"content\", results as " +
      "`path:line: text`) or find files whose path matches (target \"files\"). Skips .git, node_modules, binary " +
      "files and files over 2 MB.",
    parameters: SearchFilesParameters,
    toolset: "file",
    concurrency: "parallel-safe",
    guidance:
      "Use search_files to locate code or text before reading: search content for an identifier or message, or " +
      "use target \"files\" to find files by name. Patterns are case-insensitive regular expressions by default; " +
      "set regex to false to search for literal text containing symbols such as ( or [. Narrow large searches with " +
      "path and glob (a glob without / matches file names, e.g. *.ts; with / it matches the path relative to the " +
      "searched folder, as does the pattern in \"files\" mode). Symbolic links are not followed.",
    handler: async (args, context): Promise<ToolResult> => {
      const resolved = await resolveInWorkspace(ws, args.path ?? ".", "read");
      if (!resolved.ok) return toolError(resolved.error);

      const matcher = compilePattern(args.pattern, args.regex !== false, args.case_sensitive === true);
      if (!matcher.ok) return toolError(matcher.error);
      let acceptsPath: (relativePath: string) => boolean = () => true;
      if (args.glob !== undefined && args.glob !== "") {
        const glob = compileGlob(args.glob);
        if (!glob.ok) return toolError(glob.error);
        acceptsPath = glob.matches;
      }

      const plan: SearchPlan = {
        folder: resolved.path,
        folderDisplay: resolved.display,
        matcher: matcher.regex,
        target: args.target ?? "content",
        acceptsPath,
        maxResults: Math.min(Math.max(1, Math.floor(args.max_results ?? DEFAULT_MAX_RESULTS)), MAX_RESULTS),
        signal: context.signal,
      };
      let outcome: SearchOutcome;
      try {
        outcome = await runSearch(plan);
      } catch (error) {
        return fsFailure(error, resolved.display);
      }
      if (context.signal.aborted) {
        return toolError(`Search cancelled after scanning ${outcome.filesScanned} files.`, {
          matches: outcome.hits.length,
        });
      }
      return renderOutcome(plan, args.pattern, outcome);
    },
  });
}

function compilePattern(
  pattern: string,
  isRegex: boolean,
  caseSensitive: boolean,
): { ok: true; regex: RegExp } | { ok: false; error: string } {
  const source = isRegex ? pattern : pattern.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  try {
    return { ok: true, regex: new RegExp(source, caseSensitive ? "" : "i") };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, error: `Invalid regular expression: ${reason}. Set regex to false to search for literal text.` };
  }
}

async function runSearch(plan: SearchPlan): Promise<SearchOutcome> {
  const outcome: SearchOutcome = { hits: [], filesScanned: 0, more: false };
  for await (const entry of filesToSearch(plan.folder, plan.folderDisplay, plan.signal)) {
    if (plan.signal.aborted) break;
    if (!plan.acceptsPath(entry.relativePath)) continue;
    outcome.filesScanned += 1;
    // One hit beyond the cap is enough to know that more exist.
    const wanted = plan.maxResults - outcome.hits.length + 1;
    const found =
      plan.target === "files"
        ? pathHits(entry, plan.matcher)
        : await contentHits(entry.absolutePath, entry.display, plan.matcher, wanted);
    for (const hit of found) {
      if (outcome.hits.length >= plan.maxResults) {
        outcome.more = true;
        return outcome;
      }
      outcome.hits.push(hit);
    }
  }
  return outcome;
}

type Candidate = Pick<WalkEntry, "relativePath" | "absolutePath"> & { display: string };

/** The searched path may itself be a file; then it is the only candidate. */
async function* filesToSearch(folder: string, folderDisplay: string, signal: AbortSignal): AsyncGenerator<Candidate> {
  const stats = await fs.stat(folder);
  if (!stats.isDirectory()) {
    yield { relativePath: path.basename(folder), absolutePath: folder, display: folderDisplay };
    return;
  }
  for await (const entry of walkTree(folder, {
    recursive: true,
    skipDirectoryNames: DEFAULT_SKIPPED_DIRECTORIES,
    signal,
  })) {
    if (entry.kind !== "file") continue;
    const display = folderDisplay === "." ? entry.relativePath : path.join(folderDisplay, entry.relativePath);
    yield { relativePath: entry.relativePath, absolutePath: entry.absolutePath, display };
  }
}

function pathHits(candidate: Candidate, matcher: RegExp): string[] {
  return matcher.test(candidate.relativePath) ? [candidate.display] : [];
}

async function contentHits(absolutePath: string, display: string, matcher: RegExp, wanted: number): Promise<string[]> {
  let bytes: Buffer;
  try {
    const stats = await fs.stat(absolutePath);
    if (!stats.isFile() || stats.size > MAX_SEARCHED_FILE_BYTES) return [];
    bytes = await fs.readFile(absolutePath);
  } catch {
    // A file that vanished or is unreadable mid-walk is not worth failing the whole search for.
    return [];
  }
  if (looksBinary(bytes)) return [];
  const hits: string[] = [];
  const lines = splitLines(bytes.toString("utf8"));
  for (let index = 0; index < lines.length && hits.length < wanted; index += 1) {
    const line = lines[index] ?? "";
    if (matcher.test(line)) hits.push(`${display}:${index + 1}: ${clipHitText(line)}`);
  }
  return hits;
}

function clipHitText(line: string): string {
  const trimmed = line.trim();
  return trimmed.length > MAX_HIT_TEXT_CHARS ? `${trimmed.slice(0, MAX_HIT_TEXT_CHARS)} …` : trimmed;
}

function renderOutcome(plan: SearchPlan, pattern: string, outcome: SearchOutcome): ToolResult {
  const details = { matches: outcome.hits.length, filesScanned: outcome.filesScanned, truncated: outcome.more };
  if (outcome.hits.length === 0) {
    const what = plan.target === "files" ? "No files match" : "No matches for";
    return {
      content: `${what} ${JSON.stringify(pattern)} in ${plan.folderDisplay} (${outcome.filesScanned} files checked).`,
      details,
    };
  }
  const lines = [...outcome.hits];
  if (outcome.more) {
    lines.push(
      `[More results not shown: stopped after ${plan.maxResults}. Narrow the pattern, path or glob, ` +
        `or raise max_results (up to ${MAX_RESULTS}).]`,
    );
  }
  return { content: lines.join("\n"), details };
}
