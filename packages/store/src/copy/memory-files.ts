import { MEMORY_FILE_NAMES, fileMemoryDocuments } from "@hermes/agent";
import type { Kysely } from "kysely";
import type { Database } from "../database.js";
import { describe } from "../open-defaults.js";
import { insertRows, rowsPerStatement } from "./postgres-target.js";

/** One MEMORY.md or USER.md of an install that kept memory on disk, under its memory_documents key. */
export interface MemoryFile {
  key: string;
  text: string;
}

export type MemoryFilesRead = { ok: true; files: MemoryFile[] } | { ok: false; message: string };

const MEMORY_COLUMNS = ["key", "text", "version", "updated_at"] as const;

/**
 * The memory files below `memoryDir` ($HERMES_HOME/memory: users/…, chats/…, and the shared scope's pair at the top),
 * keyed by their path below it as the database keeps them; lock and temp files are not memory.
 */
export async function readMemoryFiles(memoryDir: string): Promise<MemoryFilesRead> {
  const documents = fileMemoryDocuments(memoryDir);
  const names = new Set<string>(Object.values(MEMORY_FILE_NAMES));
  try {
    const keys = (await documents.list("")).filter((key) => names.has(key.slice(key.lastIndexOf("/") + 1)));
    const files: MemoryFile[] = [];
    for (const key of keys) {
      const stored = await documents.read(key);
      if (stored !== undefined) files.push({ key, text: stored.text });
    }
    return { ok: true, files };
  } catch (error) {
    return { ok: false, message: `the memory files in ${memoryDir} could not be read: ${describe(error)}` };
  }
}

/**
 * Inserts the files as memory_documents rows at version 1, without NUL characters (PostgreSQL's text refuses them,
 * and the repository drops them too); returns how many files had any.
 */
export async function insertMemoryFiles(trx: Kysely<Database>, files: readonly MemoryFile[], now: number, batchSize: number): Promise<number> {
  let withNulRemoved = 0;
  const rows = files.map((file) => {
    if (file.text.includes("\u0000")) withNulRemoved += 1;
    return [file.key, file.text.replaceAll("\u0000", ""), 1, now];
  });
  const perStatement = rowsPerStatement(batchSize, MEMORY_COLUMNS.length);
  for (let start = 0; start < rows.length; start += perStatement) {
    await insertRows(trx, "memory_documents", MEMORY_COLUMNS, rows.slice(start, start + perStatement));
  }
  return withNulRemoved;
}
