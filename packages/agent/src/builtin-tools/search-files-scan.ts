import { promises as fs } from "node:fs";
import path from "node:path";
import { compileGlob } from "./glob.js";
import { looksBinary, splitLines } from "./text-file.js";
import { DEFAULT_SKIPPED_DIRECTORIES, walkTree, type WalkEntry } from "./walk.js";

export const MAX_SEARCHED_FILE_BYTES = 2 * 1024 * 1024;
/** Longer lines are matched on this prefix: a regular expression's cost grows with the text it is run on. */
export const MAX_TESTED_LINE_CHARS = 10_000;
const MAX_HIT_TEXT_CHARS = 300;
/** Progress is sent at least this often, so a stopped search can still say how far it got. */
const PROGRESS_EVERY_FILES = 100;

/** Everything a scan needs, in a form that can be handed to a worker thread. */
export interface SearchJob {
  folder: string;
  folderDisplay: string;
  patternSource: string;
  patternFlags: string;
  target: "content" | "files";
  /** Already checked to compile; absent or empty accepts every file. */
  glob?: string;
  maxResults: number;
}

export interface SearchOutcome {
  hits: string[];
  filesScanned: number;
  more: boolean;
  /** Matching lines that were longer than MAX_TESTED_LINE_CHARS. */
  longLinesCut: number;
}

/** What the scan reports as it goes: hits found since the previous report and the running file count. */
export interface SearchProgress {
  newHits: string[];
  filesScanned: number;
}

/**
 * Walks the job's folder and matches paths or lines. It runs in a worker thread (see search-files-worker.ts),
 * because a model-written regular expression can backtrack for minutes and nothing can interrupt it on the thread
 * that runs it. Throws the file-system error of an unreadable searched folder.
 */
export async function scanFiles(job: SearchJob, report: (progress: SearchProgress) => void): Promise<SearchOutcome> {
  const matcher = new RegExp(job.patternSource, job.patternFlags);
  const glob = job.glob === undefined || job.glob === "" ? undefined : compileGlob(job.glob);
  if (glob !== undefined && !glob.ok) throw new Error(glob.error);
  const outcome: SearchOutcome = { hits: [], filesScanned: 0, more: false, longLinesCut: 0 };
  let reported = 0;
  let reportedFiles = 0;
  const flush = (): void => {
    report({ newHits: outcome.hits.slice(reported), filesScanned: outcome.filesScanned });
    reported = outcome.hits.length;
    reportedFiles = outcome.filesScanned;
  };
  for await (const entry of filesToSearch(job.folder, job.folderDisplay)) {
    if (glob !== undefined && !glob.matches(entry.relativePath)) continue;
    outcome.filesScanned += 1;
    // One hit beyond the cap is enough to know that more exist.
    const wanted = job.maxResults - outcome.hits.length + 1;
    const found =
      job.target === "files" ? pathHits(entry, matcher) : await contentHits(entry, matcher, wanted, outcome);
    for (const hit of found) {
      if (outcome.hits.length >= job.maxResults) {
        outcome.more = true;
        return outcome;
      }
      outcome.hits.push(hit);
    }
    if (outcome.hits.length > reported || outcome.filesScanned - reportedFiles >= PROGRESS_EVERY_FILES) flush();
  }
  return outcome;
}

type Candidate = Pick<WalkEntry, "relativePath" | "absolutePath"> & { display: string };

/** The searched path may itself be a file; then it is the only candidate. */
async function* filesToSearch(folder: string, folderDisplay: string): AsyncGenerator<Candidate> {
  const stats = await fs.stat(folder);
  if (!stats.isDirectory()) {
    yield { relativePath: path.basename(folder), absolutePath: folder, display: folderDisplay };
    return;
  }
  for await (const entry of walkTree(folder, { recursive: true, skipDirectoryNames: DEFAULT_SKIPPED_DIRECTORIES })) {
    if (entry.kind !== "file") continue;
    const display = folderDisplay === "." ? entry.relativePath : path.join(folderDisplay, entry.relativePath);
    yield { relativePath: entry.relativePath, absolutePath: entry.absolutePath, display };
  }
}

function pathHits(candidate: Candidate, matcher: RegExp): string[] {
  return matcher.test(candidate.relativePath) ? [candidate.display] : [];
}

async function contentHits(
  candidate: Candidate,
  matcher: RegExp,
  wanted: number,
  outcome: SearchOutcome,
): Promise<string[]> {
  let bytes: Buffer;
  try {
    const stats = await fs.stat(candidate.absolutePath);
    if (!stats.isFile() || stats.size > MAX_SEARCHED_FILE_BYTES) return [];
    bytes = await fs.readFile(candidate.absolutePath);
  } catch {
    // A file that vanished or is unreadable mid-walk is not worth failing the whole search for.
    return [];
  }
  if (looksBinary(bytes)) return [];
  const hits: string[] = [];
  const lines = splitLines(bytes.toString("utf8"));
  for (let index = 0; index < lines.length && hits.length < wanted; index += 1) {
    const line = lines[index] ?? "";
    const isLong = line.length > MAX_TESTED_LINE_CHARS;
    if (!matcher.test(isLong ? line.slice(0, MAX_TESTED_LINE_CHARS) : line)) continue;
    const note = isLong ? ` [long line: only its first ${MAX_TESTED_LINE_CHARS} characters were searched]` : "";
    if (isLong) outcome.longLinesCut += 1;
    hits.push(`${candidate.display}:${index + 1}: ${clipHitText(line)}${note}`);
  }
  return hits;
}

function clipHitText(line: string): string {
  const trimmed = line.trim();
  return trimmed.length > MAX_HIT_TEXT_CHARS ? `${trimmed.slice(0, MAX_HIT_TEXT_CHARS)} …` : trimmed;
}
