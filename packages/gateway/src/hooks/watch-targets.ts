import { existsSync } from "node:fs";
import path from "node:path";
import { HANDLER_FILE_NAMES } from "./handler-module.js";
import { MANIFEST_FILE_NAME } from "./load-hook.js";

/** A folder to watch (not recursively) and which of its entries matter. */
export interface WatchTarget {
  dir: string;
  accepts: (entry: string | null) => boolean;
}

export interface HookWatchInput {
  /** The bundled and operator hooks folders; they may not exist yet. */
  roots: readonly string[];
  /** Every hook folder found in them. */
  hookFolders: readonly string[];
  stateFile?: string;
}

const HOOK_FILES: ReadonlySet<string> = new Set([MANIFEST_FILE_NAME, "package.json", ...HANDLER_FILE_NAMES]);

/**
 * Which folders to watch so that adding, removing or editing a hook, or the state file, is noticed. A folder that
 * does not exist yet is covered by watching its nearest existing ancestor for the path leading to it.
 */
export function hookWatchTargets(input: HookWatchInput): WatchTarget[] {
  const byDir = new Map<string, Array<(entry: string | null) => boolean>>();
  const add = (dir: string, accepts: (entry: string | null) => boolean): void => {
    const list = byDir.get(dir) ?? [];
    list.push(accepts);
    byDir.set(dir, list);
  };
  for (const root of input.roots) {
    if (existsSync(root)) add(root, (entry) => entry === null || !entry.startsWith("."));
    else addAncestorWatch(root, add);
  }
  for (const folder of input.hookFolders.filter((dir) => existsSync(dir))) add(folder, (entry) => entry === null || HOOK_FILES.has(entry));
  if (input.stateFile !== undefined) {
    const dir = path.dirname(input.stateFile);
    const name = path.basename(input.stateFile);
    if (existsSync(dir)) add(dir, (entry) => entry === null || entry === name);
    else addAncestorWatch(dir, add);
  }
  return [...byDir].map(([dir, tests]) => ({ dir, accepts: (entry) => tests.some((test) => test(entry)) }));
}

function addAncestorWatch(missing: string, add: (dir: string, accepts: (entry: string | null) => boolean) => void): void {
  let child = path.resolve(missing);
  let parent = path.dirname(child);
  while (parent !== child && !existsSync(parent)) {
    child = parent;
    parent = path.dirname(child);
  }
  if (parent === child) return;
  const next = path.basename(child);
  add(parent, (entry) => entry === null || entry === next);
}
