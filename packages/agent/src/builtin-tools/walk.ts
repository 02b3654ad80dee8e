import type { Dirent } from "node:fs";
import { promises as fs } from "node:fs";
import path from "node:path";

export type WalkEntryKind = "file" | "directory" | "symlink" | "other";

export interface WalkEntry {
  /** Relative to the walked folder, with `/` separators. */
  relativePath: string;
  absolutePath: string;
  kind: WalkEntryKind;
  /** True for a folder the walk did not enter because its name is in `skipDirectoryNames`. */
  skipped: boolean;
}

export interface WalkOptions {
  recursive: boolean;
  skipDirectoryNames?: ReadonlySet<string>;
  signal?: AbortSignal;
}

/** Folders that are large, generated and almost never what a search or listing is after. */
export const DEFAULT_SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set([".git", "node_modules"]);

/**
 * Depth-first walk in name order. Symbolic links are reported, never followed, so the walk cannot leave the
 * folder or loop. The walked folder itself must be readable (its error is thrown); unreadable subfolders are
 * passed over. Stops early, without error, once `signal` is aborted.
 */
export async function* walkTree(root: string, options: WalkOptions): AsyncGenerator<WalkEntry> {
  yield* walkFolder(root, "", options, true);
}

async function* walkFolder(
  absoluteFolder: string,
  relativeFolder: string,
  options: WalkOptions,
  isRoot: boolean,
): AsyncGenerator<WalkEntry> {
  if (isAborted(options.signal)) return;
  let entries: Dirent[];
  try {
    entries = await fs.readdir(absoluteFolder, { withFileTypes: true });
  } catch (error) {
    if (isRoot) throw error;
    return;
  }
  entries.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
  for (const entry of entries) {
    if (isAborted(options.signal)) return;
    const relativePath = relativeFolder === "" ? entry.name : `${relativeFolder}/${entry.name}`;
    const absolutePath = path.join(absoluteFolder, entry.name);
    const kind = kindOf(entry);
    const skipped = kind === "directory" && options.recursive && (options.skipDirectoryNames?.has(entry.name) ?? false);
    yield { relativePath, absolutePath, kind, skipped };
    if (kind === "directory" && options.recursive && !skipped) {
      yield* walkFolder(absolutePath, relativePath, options, false);
    }
  }
}

// A function call, so the compiler does not treat `aborted` as unchanged across awaits.
function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

function kindOf(entry: Dirent): WalkEntryKind {
  if (entry.isSymbolicLink()) return "symlink";
  if (entry.isDirectory()) return "directory";
  if (entry.isFile()) return "file";
  return "other";
}
