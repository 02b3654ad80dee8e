import type { Logger } from "@hermes/agent";
import type { HomeFiles } from "./home-files.js";

export interface SessionCopiesDeps {
  homeFiles: HomeFiles;
  /** The shared folders holding session files here: the attachments folder and the saved tool outputs. */
  folders: readonly string[];
  logger: Logger;
}

/**
 * With HERMES_DATABASE_URL these folders are a cache: the database holds a conversation's files while the conversation
 * lasts, and a run restores what its session lacks before it starts (SharedFilesSync.restoreSession, which also marks
 * the copies it finds as used). Without pruning, the home of every worker would keep a copy of every file of every
 * conversation it ever ran, and copies of conversations the database's retention deleted would outlive them on each
 * machine. So a copy goes once nothing has written or used it since `cutoffMs`, whatever the database holds; the
 * database is not asked, so a pruning also works, and frees space, while it is away.
 */
export async function pruneSessionCopies(deps: SessionCopiesDeps, cutoffMs: number, signal?: AbortSignal): Promise<number> {
  let removed = 0;
  for (const folder of deps.folders) {
    for (const copy of await deps.homeFiles.unusedSince(folder, cutoffMs)) {
      if (signal?.aborted === true) return removed;
      if (await deps.homeFiles.removeUnusedCopy(copy, cutoffMs)) removed += 1;
    }
  }
  if (removed > 0) deps.logger.info("shared files: removed this home's unused copies of session files", { removed });
  return removed;
}
