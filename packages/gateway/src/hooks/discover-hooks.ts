import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "@hermes/agent";
import { readHookFolder, type HookCandidate, type HookSource } from "./load-hook.js";

export type ValidHook = Extract<HookCandidate, { ok: true }>;
export type InvalidHook = Extract<HookCandidate, { ok: false }>;

export interface DiscoverHooksOptions {
  bundledDir?: string;
  operatorDir?: string;
  logger: Logger;
}

export interface DiscoveredHooks {
  /** One per name, sorted by name; an operator hook replaces the bundled hook of the same name. */
  hooks: ValidHook[];
  /** Folders that are not usable hooks, with the reason (already logged). */
  invalid: InvalidHook[];
}

/** Reads every hook folder; a broken one is reported and left out, never fatal. */
export async function discoverHooks(options: DiscoverHooksOptions): Promise<DiscoveredHooks> {
  const bundled = await readSource(options.bundledDir, "bundled", options.logger);
  const operator = await readSource(options.operatorDir, "operator", options.logger);
  const byName = new Map<string, ValidHook>();
  const invalid: InvalidHook[] = [];
  for (const candidates of [bundled, operator]) {
    const seenInSource = new Map<string, ValidHook>();
    for (const candidate of candidates) {
      if (!candidate.ok) {
        invalid.push(candidate);
        continue;
      }
      const name = candidate.manifest.name;
      const earlier = seenInSource.get(name);
      if (earlier) {
        const error = `another ${candidate.source} hook is already named "${name}" (${earlier.folder})`;
        invalid.push({ ok: false, name, folder: candidate.folder, source: candidate.source, error });
        continue;
      }
      seenInSource.set(name, candidate);
      byName.set(name, candidate);
    }
  }
  for (const hook of invalid) {
    options.logger.warn(`hook "${hook.name}" skipped: ${hook.error}`, { hook: hook.name, folder: hook.folder, source: hook.source, reason: hook.error });
  }
  const hooks = [...byName.values()].sort((a, b) => compareNames(a.manifest.name, b.manifest.name));
  return { hooks, invalid };
}

async function readSource(dir: string | undefined, source: HookSource, logger: Logger): Promise<HookCandidate[]> {
  if (dir === undefined) return [];
  const folders = await hookFolders(dir, logger);
  return Promise.all(folders.map((folder) => readHookFolder(folder, source)));
}

async function hookFolders(dir: string, logger: Logger): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    // No hooks folder simply means no hooks of that kind.
    if (isMissing(error)) return [];
    logger.warn(`hooks folder ${dir} cannot be read`, { folder: dir, error: error instanceof Error ? error.message : String(error) });
    return [];
  }
  const folders: string[] = [];
  // Dot-folders are never hooks: installs stage into them and editors keep their state there.
  for (const entry of entries.filter((item) => !item.name.startsWith(".")).sort((a, b) => compareNames(a.name, b.name))) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() || (entry.isSymbolicLink() && (await isDirectory(full)))) folders.push(full);
  }
  return folders;
}

async function isDirectory(file: string): Promise<boolean> {
  return stat(file).then(
    (info) => info.isDirectory(),
    () => false,
  );
}

function isMissing(error: unknown): boolean {
  return typeof error === "object" && error !== null && "code" in error && (error.code === "ENOENT" || error.code === "ENOTDIR");
}

export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
