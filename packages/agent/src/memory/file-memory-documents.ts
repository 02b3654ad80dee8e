import { AsyncLocalStorage } from "node:async_hooks";
import { createHash } from "node:crypto";
import { promises as fs, statSync } from "node:fs";
import path from "node:path";
import { writeFileAtomically } from "../builtin-tools/atomic-write.js";
import { errorCode } from "../builtin-tools/fs-errors.js";
import { withFileLock, type FileLockOptions, type LockedOutcome } from "./file-lock.js";
import type { MemoryDocument, MemoryDocuments, MemoryDocumentWrite, MemoryStorage } from "./memory-documents.js";

/** The lock files this async context holds, so a write inside `exclusive` does not wait for its own lock. */
const heldLocks = new AsyncLocalStorage<ReadonlySet<string>>();

/**
 * The memory files on disk below `root` (DESIGN.md's layout). Every write is a locked compare-and-replace with an
 * atomic rename, so concurrent writers (other processes or other instances) never lose each other's entries and
 * readers never see half a file. A file's version is a hash of its text: files edited by hand have no counter, and
 * a write based on text that is still there is right whoever wrote it.
 */
export function fileMemoryDocuments(root: string, lock: FileLockOptions = {}): MemoryDocuments {
  const fileOf = (key: string): string => path.join(root, ...key.split("/"));
  const lockOf = (file: string): string => `${file}.lock`;

  const locked = async <T>(file: string, critical: () => Promise<T>): Promise<LockedOutcome<T>> => {
    const lockFile = lockOf(file);
    const held = heldLocks.getStore() ?? new Set<string>();
    if (held.has(lockFile)) return { ok: true, value: await critical() };
    await fs.mkdir(path.dirname(file), { recursive: true });
    return withFileLock(lockFile, () => heldLocks.run(new Set([...held, lockFile]), critical), lock);
  };

  return {
    read: (key) => readDocument(fileOf(key)),

    async write(key, text, expectedVersion): Promise<MemoryDocumentWrite> {
      const file = fileOf(key);
      const outcome = await locked(file, async (): Promise<MemoryDocumentWrite> => {
        const current = await readDocument(file);
        if (current?.version !== expectedVersion) return { ok: false, reason: "conflict" };
        await writeFileAtomically(file, text);
        return { ok: true, version: versionOf(text) };
      });
      return outcome.ok ? outcome.value : { ok: false, reason: "busy" };
    },

    async remove(key) {
      const file = fileOf(key);
      const present = await fs.stat(file).then(() => true, () => false);
      await fs.rm(file, { force: true });
      return present;
    },

    async list(prefix) {
      const folder = prefix.slice(0, prefix.lastIndexOf("/") + 1);
      const keys = await listMarkdown(fileOf(folder), folder);
      return keys.filter((key) => key.startsWith(prefix)).sort();
    },

    exclusive: (key, critical) => locked(fileOf(key), critical),
  };
}

/** The memory files below `root` as a MemoryStorage. */
export function fileMemoryStorage(root: string, lock?: FileLockOptions): MemoryStorage {
  return { root, documents: fileMemoryDocuments(root, lock) };
}

async function readDocument(file: string): Promise<MemoryDocument | undefined> {
  if (!mayExist(file)) return undefined;
  try {
    const text = await fs.readFile(file, "utf8");
    return { text, version: versionOf(text) };
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
}

/** 48 bits of SHA-256: a safe integer, and no two texts a writer meets in practice share one. */
function versionOf(text: string): number {
  return createHash("sha256").update(text).digest().readUIntBE(0, 6);
}

/**
 * False only when the file is certainly missing. A new scope's files usually are, and each new conversation reads
 * them: a stat that returns nothing is cheaper than a failing read (a thread-pool round trip and an error object).
 * Any other trouble is left to the read, which reports it as before.
 */
function mayExist(file: string): boolean {
  try {
    return statSync(file, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return true;
  }
}

/** The `.md` files below `dir` (lock and temp files are not documents), as keys. */
async function listMarkdown(dir: string, keyPrefix: string): Promise<string[]> {
  let entries;
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch (error) {
    if (errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR") return [];
    throw error;
  }
  const keys: string[] = [];
  for (const entry of entries) {
    const key = `${keyPrefix}${entry.name}`;
    if (entry.isDirectory()) keys.push(...(await listMarkdown(path.join(dir, entry.name), `${key}/`)));
    else if (entry.isFile() && entry.name.endsWith(".md") && !entry.name.startsWith(".")) keys.push(key);
  }
  return keys;
}
