import { DEFAULT_MAX_SHARED_FILE_BYTES, type SharedFileRepository } from "@hermes/store";
import { HomeFiles, sha256 } from "./home-files.js";
import { HOOK_STATE_PATH, SKILLS_FOLDER } from "./shared-files-sync.js";

export type ShareHomeFilesResult =
  | { ok: true; files: number; bytes: number; unchanged: number }
  | { ok: false; error: string; path: string };

/**
 * Brings an existing install's agent-made skills (`$HERMES_HOME/skills/**`) and `hooks/state.json` into the database's
 * shared files, for `hermes db copy` moving a SQLite install to PostgreSQL. Running it again writes only what differs,
 * so a copy interrupted after the tables can finish with it. A file over the size cap stops it with the file's name:
 * a skill missing a file on the other machines would be lost without anyone being told.
 */
export async function shareHomeFiles(files: SharedFileRepository, home: string): Promise<ShareHomeFilesResult> {
  const homeFiles = new HomeFiles(home);
  const paths = await homeFilesToShare(homeFiles);
  let shared = 0;
  let bytes = 0;
  let unchanged = 0;
  for (const path of paths) {
    const content = await homeFiles.read(path);
    if (content === undefined) continue;
    if ((await files.get(path))?.sha256 === sha256(content)) {
      unchanged += 1;
      continue;
    }
    const put = await files.put(path, content);
    if (!put.ok) {
      const why = put.reason === "too_large" ? `${put.size} bytes is over the ${put.maxBytes}-byte limit of shared files` : put.detail;
      return { ok: false, error: `${path}: ${why}`, path };
    }
    shared += 1;
    bytes += content.byteLength;
  }
  return { ok: true, files: shared, bytes, unchanged };
}

/**
 * Checks, writing nothing, that every file shareHomeFiles would share fits under the cap: run before a copy, so the
 * one failure to expect is found while the target is still empty.
 */
export async function checkHomeFilesShareable(home: string): Promise<{ ok: true; files: number } | { ok: false; error: string; path: string }> {
  const homeFiles = new HomeFiles(home);
  const paths = await homeFilesToShare(homeFiles);
  for (const path of paths) {
    const size = (await homeFiles.sizeOf(path)) ?? 0;
    if (size > DEFAULT_MAX_SHARED_FILE_BYTES) {
      return { ok: false, error: `${path}: ${size} bytes is over the ${DEFAULT_MAX_SHARED_FILE_BYTES}-byte limit of shared files`, path };
    }
  }
  return { ok: true, files: paths.length };
}

async function homeFilesToShare(homeFiles: HomeFiles): Promise<string[]> {
  const hookState = (await homeFiles.sizeOf(HOOK_STATE_PATH)) === undefined ? [] : [HOOK_STATE_PATH];
  return [...(await homeFiles.filesUnder(SKILLS_FOLDER)), ...hookState];
}
