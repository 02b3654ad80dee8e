import { constants as fsConstants, lstatSync, statSync, type Stats } from "node:fs";
import * as fs from "node:fs/promises";
import * as path from "node:path";
import type { Logger } from "../observability/logger.js";
import { scanContextContent, type ScanFinding } from "./injection-scan.js";

/** Names the agent looks for, highest priority first; only the first one present is used. */
export const CONTEXT_FILE_NAMES = ["HERMES.md", "AGENTS.md", "CLAUDE.md", ".cursorrules"] as const;

export const DEFAULT_CONTEXT_MAX_CHARS = 20_000;

export interface ContextFile {
  name: string;
  path: string;
  /** Cleaned text (invisible characters removed); empty when blocked. */
  content: string;
  findings: ScanFinding[];
  /** True when the scan found injection patterns and the file was withheld from the prompt. */
  blocked: boolean;
  mtimeMs: number;
  size: number;
}

export interface LoadContextFileOptions {
  onThreat: "block" | "warn";
  maxChars?: number;
  logger: Logger;
}

/**
 * Cheap identity of the context file the loader would pick: which name, and the modification time and size
 * of what it points at. Equal stamps mean the file need not be read again.
 */
export interface ContextFileStamp {
  name: string;
  path: string;
  key: string;
  /**
   * False while the file changed too recently for its stamp to be trusted: file systems keep modification and change
   * times coarsely (a clock tick on Linux, up to 2 s elsewhere), so an edit of the same size in the same tick leaves
   * the stamp as it was. What was read from such a file is read again next time. The change time counts too: an edit
   * that puts an old mtime back (`cp -p`, `touch -r`) is recent all the same.
   */
  settled: boolean;
}

/** How long after a file's last change its stamp is trusted to change with the next edit. */
export const UNSETTLED_STAMP_MS = 2_000;

/**
 * Finds the highest-priority context file name present in `dir` (any kind of entry counts, so the loader and
 * the stamp always agree on the name) and describes it without reading it. One lstat per candidate up to the
 * first present one, plus a stat when that one is a symlink. Synchronous on purpose: this runs before every
 * model call, the names are usually all missing, and four asynchronous lstats cost four thread-pool round trips
 * and four error objects on the reply's path, where these take microseconds.
 */
export async function stampContextFile(dir: string, now: () => number = Date.now): Promise<ContextFileStamp | null> {
  for (const name of CONTEXT_FILE_NAMES) {
    const filePath = path.join(dir, name);
    const entry = statWithoutThrowing(filePath, lstatSync);
    if (entry === "missing") continue;
    if (typeof entry === "string") return { name, path: filePath, key: `error:${entry}`, settled: true };
    let key = `${entry.isSymbolicLink() ? "link" : "entry"}:${identityOf(entry)}`;
    let changedMs = Math.max(entry.mtimeMs, entry.ctimeMs);
    if (entry.isSymbolicLink()) {
      const target = statWithoutThrowing(filePath, statSync);
      if (typeof target === "string") key += `:${target}`;
      else {
        key += `:${identityOf(target)}`;
        changedMs = Math.max(changedMs, target.mtimeMs, target.ctimeMs);
      }
    }
    return { name, path: filePath, key, settled: now() - changedMs > UNSETTLED_STAMP_MS };
  }
  return null;
}

/**
 * Inode and change time as well as size and mtime: a file renamed into place, or edited with its mtime put back
 * (`cp -p`, `touch -r`, an rsync that keeps times), may match the old size and mtime, never its inode and ctime too.
 */
function identityOf(info: Stats): string {
  return `${info.ino}:${info.ctimeMs}:${info.mtimeMs}:${info.size}`;
}

/** The entry's stats, "missing" when there is none, or the error code when it cannot be looked at. */
function statWithoutThrowing(filePath: string, stat: (file: string, options: { throwIfNoEntry: false }) => Stats | undefined): Stats | string {
  try {
    return stat(filePath, { throwIfNoEntry: false }) ?? "missing";
  } catch (error) {
    return isMissing(error) ? "missing" : errorCode(error);
  }
}

/**
 * Loads the highest-priority context file in `dir`, truncated to `maxChars` and scanned for prompt injection.
 * Returns null when there is none, or when the first one present is not a regular file inside `dir`.
 */
export async function loadContextFile(dir: string, options: LoadContextFileOptions): Promise<ContextFile | null> {
  const { logger } = options;
  const maxChars = options.maxChars ?? DEFAULT_CONTEXT_MAX_CHARS;
  const stamp = await stampContextFile(dir);
  if (stamp === null) return null;
  const { name, path: filePath } = stamp;

  const target = await resolveInside(dir, filePath);
  if (!target.ok) {
    logger.warn("context file ignored", { file: name, reason: target.reason });
    return null;
  }

  const read = await readPrefix(target.path, maxChars);
  if (!read.ok) {
    logger.warn("context file ignored", { file: name, reason: read.reason });
    return null;
  }

  const { cleaned, findings } = scanContextContent(read.text);
  const threats = findings.filter((finding) => finding.kind !== "invisible_characters");
  const blocked = threats.length > 0 && options.onThreat === "block";
  if (findings.length > 0) {
    logger.warn(blocked ? "context file blocked: possible prompt injection" : "context file has suspicious content", {
      file: name,
      kinds: distinctKinds(findings),
      action: blocked ? "blocked" : threats.length > 0 ? "loaded" : "loaded with invisible characters removed",
    });
  }
  if (read.truncated) {
    logger.warn("context file truncated", { file: name, maxChars });
  }

  const note = read.truncated ? `\n\n[${name} was truncated: only its first ${maxChars} characters were loaded.]` : "";
  return {
    name,
    path: filePath,
    content: blocked ? "" : cleaned + note,
    findings,
    blocked,
    mtimeMs: read.mtimeMs,
    size: read.size,
  };
}

export function distinctKinds(findings: readonly ScanFinding[]): string[] {
  return [...new Set(findings.map((finding) => finding.kind))];
}

type Resolved = { ok: true; path: string } | { ok: false; reason: string };

async function resolveInside(dir: string, filePath: string): Promise<Resolved> {
  let realDir: string;
  let realFile: string;
  try {
    [realDir, realFile] = await Promise.all([fs.realpath(dir), fs.realpath(filePath)]);
  } catch (error) {
    return { ok: false, reason: `cannot resolve (${errorCode(error)})` };
  }
  const relative = path.relative(realDir, realFile);
  if (relative === "" || relative === ".." || relative.startsWith(".." + path.sep) || path.isAbsolute(relative)) {
    return { ok: false, reason: "symlink leads outside the context directory" };
  }
  return { ok: true, path: realFile };
}

type ReadResult =
  | { ok: true; text: string; truncated: boolean; mtimeMs: number; size: number }
  | { ok: false; reason: string };

async function readPrefix(filePath: string, maxChars: number): Promise<ReadResult> {
  let handle: fs.FileHandle;
  try {
    // Non-blocking so that a FIFO planted under a context file name cannot stall the open.
    handle = await fs.open(filePath, fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0));
  } catch (error) {
    return { ok: false, reason: `cannot open (${errorCode(error)})` };
  }
  try {
    // Checked on the open handle so a swap between resolving and opening cannot smuggle in a device or FIFO.
    const info = await handle.stat();
    if (!info.isFile()) return { ok: false, reason: "not a regular file" };
    // A UTF-16 code unit never takes more than 3 UTF-8 bytes, so this many bytes always covers maxChars units.
    const budget = Math.min(info.size, maxChars * 3 + 3);
    const buffer = Buffer.alloc(budget);
    let filled = 0;
    while (filled < budget) {
      const { bytesRead } = await handle.read(buffer, filled, budget - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    const decoded = new TextDecoder("utf-8").decode(buffer.subarray(0, filled));
    const text = decoded.replace(/^\uFEFF/, "");
    const truncated = text.length > maxChars || info.size > filled;
    return { ok: true, text: truncated ? cutAt(text, maxChars) : text, truncated, mtimeMs: info.mtimeMs, size: info.size };
  } catch (error) {
    return { ok: false, reason: `cannot read (${errorCode(error)})` };
  } finally {
    await handle.close();
  }
}

function cutAt(text: string, maxChars: number): string {
  const cut = text.slice(0, maxChars);
  const last = cut.charCodeAt(cut.length - 1);
  // Never leave half of a surrogate pair at the end.
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}

function isMissing(error: unknown): boolean {
  const code = errorCode(error);
  return code === "ENOENT" || code === "ENOTDIR";
}

function errorCode(error: unknown): string {
  if (typeof error === "object" && error !== null && "code" in error && typeof error.code === "string") {
    return error.code;
  }
  return error instanceof Error ? error.message : String(error);
}
