import { promises as fs } from "node:fs";
import path from "node:path";
import { errorCode } from "../builtin-tools/fs-errors.js";
import { silentLogger, type Logger } from "../observability/logger.js";

/** How long a session's saved tool output is kept after its last change. */
export const DEFAULT_SESSION_FOLDER_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

export interface SessionFolderRetentionOptions {
  now: () => number;
  maxAgeMs?: number;
  logger?: Logger;
}

/**
 * Deletes the session folders under `sessionsRoot` in which nothing (no file, no folder, not the folder itself)
 * changed for `maxAgeMs`: saved outputs hold terminal output and fetched pages that should not pile up for ever.
 * Best effort: a folder that cannot be inspected or deleted is logged and left alone.
 * Returns the names of the deleted folders.
 */
export async function removeExpiredSessionFolders(sessionsRoot: string, options: SessionFolderRetentionOptions): Promise<string[]> {
  const logger = options.logger ?? silentLogger;
  const cutoff = options.now() - (options.maxAgeMs ?? DEFAULT_SESSION_FOLDER_RETENTION_MS);
  let names: string[];
  try {
    names = (await fs.readdir(sessionsRoot, { withFileTypes: true })).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  } catch (error) {
    if (errorCode(error) !== "ENOENT") logger.warn("session folders not cleaned up: cannot list them", { dir: sessionsRoot, code: errorCode(error) });
    return [];
  }
  const removed: string[] = [];
  for (const name of names.sort()) {
    const folder = path.join(sessionsRoot, name);
    try {
      if ((await newestChangeIn(folder)) >= cutoff) continue;
      await fs.rm(folder, { recursive: true, force: true });
      removed.push(name);
    } catch (error) {
      if (errorCode(error) === undefined) throw error;
      logger.warn("session folder not cleaned up", { folder: name, code: errorCode(error) });
    }
  }
  if (removed.length > 0) logger.info("removed expired session folders", { dir: sessionsRoot, count: removed.length, maxAgeDays: ageInDays(options) });
  return removed;
}

/** Latest modification time of the folder or anything below it; links are looked at, never followed. */
async function newestChangeIn(target: string): Promise<number> {
  const stats = await fs.lstat(target);
  if (!stats.isDirectory()) return stats.mtimeMs;
  let newest = stats.mtimeMs;
  for (const name of await fs.readdir(target)) {
    newest = Math.max(newest, await newestChangeIn(path.join(target, name)));
  }
  return newest;
}

function ageInDays(options: SessionFolderRetentionOptions): number {
  return (options.maxAgeMs ?? DEFAULT_SESSION_FOLDER_RETENTION_MS) / (24 * 60 * 60 * 1000);
}
