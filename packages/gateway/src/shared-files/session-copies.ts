import type { Logger } from "@hermes/agent";
import type { SharedFileRepository } from "@hermes/store";
import type { HomeFiles } from "./home-files.js";

export interface SessionCopiesDeps {
  files: Pick<SharedFileRepository, "listUnder">;
  homeFiles: HomeFiles;
  /** The shared folders holding session files here: the attachments folder and the saved tool outputs. */
  folders: readonly string[];
  logger: Logger;
}

/**
 * With HERMES_DATABASE_URL a process's copies of session files (attachments, saved tool outputs) are a cache: the
 * database holds them while their conversation lasts, and a run restores what its session lacks before it starts
 * (SharedFilesSync.restoreSession, which also marks present copies as used). Without pruning, the home of every worker
 * would keep a copy of every file of every conversation it ever ran. A copy goes once it has not been written or used
 * since `cutoffMs` and the database holds the same file (same size, not removed); a file only this home has stays.
 */
export async function pruneSessionCopies(deps: SessionCopiesDeps, cutoffMs: number, signal?: AbortSignal): Promise<number> {
  let removed = 0;
  for (const folder of deps.folders) {
    for (const copy of await deps.homeFiles.unusedSince(folder, cutoffMs)) {
      if (signal?.aborted === true) return removed;
      const held = (await deps.files.listUnder(copy.path)).find((entry) => entry.path === copy.path);
      if (held === undefined || held.deleted || held.size !== copy.size) continue;
      if (await deps.homeFiles.removeUnusedCopy(copy.path, cutoffMs)) removed += 1;
    }
  }
  if (removed > 0) deps.logger.info("shared files: removed this home's unused copies of session files", { removed });
  return removed;
}
