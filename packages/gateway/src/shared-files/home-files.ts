import { createHash, randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, rmdir, stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { checkSharedPath } from "@hermes/store";

/**
 * A process's HERMES_HOME seen as the cache of the shared files: paths are the store's (relative, `/`-separated), and
 * every write lands by rename, so a skill scan or a hook-state read never sees half a file.
 */
export class HomeFiles {
  constructor(readonly home: string) {}

  /** The absolute path of a shared path; undefined for one that could leave HERMES_HOME (it came from the database). */
  absolute(sharedPath: string): string | undefined {
    if (checkSharedPath(sharedPath) !== undefined) return undefined;
    return path.join(this.home, ...sharedPath.split("/"));
  }

  /** The shared path of a file inside HERMES_HOME; undefined for one outside it. */
  sharedPathOf(absolute: string): string | undefined {
    const relative = path.relative(this.home, path.resolve(absolute));
    const shared = relative.split(path.sep).join("/");
    return checkSharedPath(shared) === undefined ? shared : undefined;
  }

  async read(sharedPath: string): Promise<Buffer | undefined> {
    const file = this.absolute(sharedPath);
    if (file === undefined) return undefined;
    return readFile(file).catch((error: unknown) => {
      if (isMissing(error)) return undefined;
      throw error;
    });
  }

  /** The size of the local copy, undefined when there is none (or it is not a file). */
  async sizeOf(sharedPath: string): Promise<number | undefined> {
    const file = this.absolute(sharedPath);
    if (file === undefined) return undefined;
    const info = await stat(file).catch((error: unknown) => {
      if (isMissing(error)) return undefined;
      throw error;
    });
    return info?.isFile() === true ? info.size : undefined;
  }

  /** The sha256 of the local copy, undefined when there is none. */
  async hashOf(sharedPath: string): Promise<string | undefined> {
    const bytes = await this.read(sharedPath);
    return bytes === undefined ? undefined : sha256(bytes);
  }

  async write(sharedPath: string, content: Uint8Array): Promise<void> {
    const file = this.absolute(sharedPath);
    if (file === undefined) throw new Error(`refusing to write outside HERMES_HOME: ${sharedPath}`);
    await mkdir(path.dirname(file), { recursive: true });
    const staging = `${file}.${randomBytes(6).toString("hex")}.sync-tmp`;
    try {
      await writeFile(staging, content);
      await rename(staging, file);
    } finally {
      await rm(staging, { force: true });
    }
  }

  /**
   * Deletes the local copy, then every empty folder in the first-level folder below `keepFolder` that holds it (a
   * skill's folder, whose other files' removals may have left empty subfolders), and that folder itself when empty.
   */
  async remove(sharedPath: string, keepFolder: string): Promise<void> {
    const file = this.absolute(sharedPath);
    if (file === undefined) return;
    await rm(file, { force: true });
    const keep = path.join(this.home, ...keepFolder.split("/").filter(Boolean));
    const inside = path.relative(keep, file).split(path.sep);
    if (inside.length < 2 || inside[0] === "..") return;
    await pruneEmptyFolders(path.join(keep, inside[0] ?? ""));
  }

  /**
   * Deletes the local copy when it is still unused since `cutoffMs`; true when it went. The listing that chose it may
   * be long stale, and a run may mark the copy as used (touch) at any moment: the copy is first moved aside, so a
   * touch either lands before the move (seen here, and the copy is put back) or finds no copy and the run restores it.
   * Its folder stays even when empty: an adapter or a run may have just made it for a file it is about to write.
   */
  async removeUnusedCopy(sharedPath: string, cutoffMs: number): Promise<boolean> {
    const file = this.absolute(sharedPath);
    if (file === undefined) return false;
    const aside = `${file}.${randomBytes(6).toString("hex")}.sync-tmp`;
    try {
      await rename(file, aside);
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
    if ((await stat(aside)).mtimeMs < cutoffMs) {
      await rm(aside, { force: true });
      return true;
    }
    await rename(aside, file);
    return false;
  }

  /**
   * Marks the local copy as used now (its modification time), so a pruning of unused copies leaves it; false when
   * there is no copy (a pruning may have just taken it), which the caller then restores.
   */
  async touch(sharedPath: string, at: Date): Promise<boolean> {
    const file = this.absolute(sharedPath);
    if (file === undefined) return false;
    return utimes(file, at, at).then(
      () => true,
      (error: unknown) => {
        if (isMissing(error)) return false;
        throw error;
      },
    );
  }

  /** The regular files below a shared folder not written or used since `cutoffMs`, as shared paths. */
  async unusedSince(sharedFolder: string, cutoffMs: number): Promise<string[]> {
    const unused: string[] = [];
    // Staging files count too: one a crash left behind, moved aside by a pruning, keeps its copy's old time.
    for (const shared of await this.filesUnder(sharedFolder, { staging: true })) {
      const info = await stat(this.absolute(shared) ?? "").catch(() => undefined);
      if (info !== undefined && info.isFile() && info.mtimeMs < cutoffMs) unused.push(shared);
    }
    return unused;
  }

  /**
   * Every regular file below a shared folder path (e.g. `skills/<name>`), as shared paths; empty when it is absent.
   * Files being written (`.sync-tmp`) are left out unless asked for.
   */
  async filesUnder(sharedFolder: string, options: { staging?: boolean } = {}): Promise<string[]> {
    const root = this.absolute(sharedFolder);
    if (root === undefined) return [];
    const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch((error: unknown) => {
      if (isMissing(error)) return [];
      throw error;
    });
    const files: string[] = [];
    for (const entry of entries) {
      if (!entry.isFile() || (entry.name.endsWith(".sync-tmp") && options.staging !== true)) continue;
      const shared = this.sharedPathOf(path.join(entry.parentPath, entry.name));
      if (shared !== undefined) files.push(shared);
    }
    return files.sort();
  }
}

/** Removes empty folders bottom-up; true when `dir` itself went. A folder holding any file stays. */
async function pruneEmptyFolders(dir: string): Promise<boolean> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => undefined);
  if (entries === undefined) return false;
  let left = entries.length;
  for (const entry of entries) {
    if (entry.isDirectory() && (await pruneEmptyFolders(path.join(dir, entry.name)))) left -= 1;
  }
  if (left > 0) return false;
  return rmdir(dir).then(
    () => true,
    () => false,
  );
}

export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function isMissing(error: unknown): boolean {
  return typeof error === "object" && error !== null && "code" in error && (error.code === "ENOENT" || error.code === "ENOTDIR");
}
