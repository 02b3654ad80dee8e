import path from "node:path";
import type { LockedOutcome } from "./file-lock.js";

/** One stored memory file: its text and the version a compare-and-swap write must name. */
export interface MemoryDocument {
  text: string;
  /** Opaque to callers: only handed back to `write`. */
  version: number;
}

export type MemoryDocumentWrite = { ok: true; version: number } | { ok: false; reason: "conflict" | "busy" };

/**
 * Where MEMORY.md and USER.md are kept: the files under $HERMES_HOME/memory, or the store's `memory_documents` table
 * with HERMES_DATABASE_URL. A key is the file's path below the memory root with `/` separators, e.g.
 * `users/telegram/123/MEMORY.md` (memory-scope.ts encodes the folder names), so both keep the same layout.
 */
export interface MemoryDocuments {
  /** Undefined when the document does not exist. */
  read(key: string): Promise<MemoryDocument | undefined>;
  /**
   * Compare-and-swap: stores `text` only while the document is still at `expectedVersion` (undefined: only while it
   * does not exist); otherwise a conflict, and nothing is written.
   */
  write(key: string, text: string, expectedVersion: number | undefined): Promise<MemoryDocumentWrite>;
  /** Deletes the document; true when it was there. */
  remove(key: string): Promise<boolean>;
  /** The keys starting with `prefix` ("" for all), in key order. */
  list(prefix: string): Promise<string[]>;
  /**
   * Runs `critical` while other writers of `key` wait (the file store's lock file), so a read-modify-write inside
   * it meets no conflict. Without it, writers rely on the compare-and-swap alone and retry.
   */
  exclusive?<T>(key: string, critical: () => Promise<T>): Promise<LockedOutcome<T>>;
}

/** Documents and the folder their keys are relative to (scope folders are paths below it). */
export interface MemoryStorage {
  root: string;
  documents: MemoryDocuments;
}

/** The key of `file`, a path below `root`. A path outside it is a bug of the caller, not a condition. */
export function memoryDocumentKey(root: string, file: string): string {
  const relative = path.relative(root, file);
  if (relative === "" || relative === ".." || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) {
    throw new Error(`memory file ${file} is not below the memory root ${root}`);
  }
  return relative.split(path.sep).join("/");
}
