import type { ControlledTransaction, Kysely } from "kysely";
import type { Database } from "../database.js";
import { describe } from "../open-defaults.js";
import { migratePostgresToLatest } from "../pg/migrate-pg.js";
import { redactDatabaseUrl } from "../pg/redact-url.js";
import { COPIED_TABLES, SQLITE_ONLY_TABLES, type CopiedTable } from "./copied-tables.js";
import { insertMemoryFiles, readMemoryFiles, type MemoryFile } from "./memory-files.js";
import { connectPostgres } from "./postgres-connection.js";
import { advanceSequences, countRows, insertableColumns, insertRows, lockTables, rowsPerStatement, setColumnById, tablesWithRows } from "./postgres-target.js";
import { openSqliteSnapshot, type SourceError, type SqliteSnapshot, type SqliteValue } from "./sqlite-source.js";

export interface CopyToPostgresOptions {
  /** The SQLite file to copy; opened read-only (migrated first when its schema is older). */
  file: string;
  /** The PostgreSQL database to copy into: migrated first, and refused unless every table of ours is empty. */
  databaseUrl: string;
  /** Rows per INSERT (default 1000). */
  batchSize?: number;
  /** How long to wait for another process's lock on a target table before giving up (default 10 s). */
  lockTimeoutMs?: number;
  /** Told after each table is in (not committed yet), for progress on a large copy. */
  onTableCopied?: (table: string, rows: number) => void;
  /**
   * The install's $HERMES_HOME/memory: its MEMORY.md and USER.md files become memory_documents rows, since a SQLite
   * install keeps memory in files and PostgreSQL keeps it in that table (in the same transaction, counted with it).
   */
  memoryDir?: string;
  /** Clock of the memory rows' updated_at (default Date.now). */
  now?: () => number;
}

export interface TableCopyCount {
  table: string;
  sqliteRows: number;
  postgresRows: number;
  /** Values that held NUL characters, which PostgreSQL's text refuses; copied without them. */
  valuesWithNulRemoved: number;
  /** Of `sqliteRows`, those that came from files, not from the SQLite table (memory_documents: the memory files). */
  fromFiles?: number;
}

export type CopyError =
  | SourceError
  /** Unreachable, not migratable, or migrated by a newer version. */
  | { kind: "target_unusable"; message: string }
  | { kind: "target_not_empty"; message: string; tables: string[] }
  /** The two schemas do not have the same columns: the two sides were migrated by different versions. */
  | { kind: "schema_mismatch"; message: string }
  | { kind: "copy_failed"; message: string; table?: string }
  | { kind: "counts_differ"; message: string; tables: TableCopyCount[] };

export type CopyResult = { ok: true; source: string; target: string; tables: TableCopyCount[] } | { ok: false; error: CopyError };

const DEFAULT_BATCH_SIZE = 1000;
const DEFAULT_LOCK_TIMEOUT_MS = 10_000;

/**
 * Moves a SQLite install into an empty PostgreSQL database (`hermes db copy`): every table of the shared schema, ids
 * kept, in one transaction, so a failure anywhere leaves the target as empty as it was. The row counts of both sides
 * are compared before the commit.
 */
export async function copySqliteToPostgres(options: CopyToPostgresOptions): Promise<CopyResult> {
  const target = redactDatabaseUrl(options.databaseUrl);
  const opened = await openSqliteSnapshot(options.file);
  if (!opened.ok) return { ok: false, error: opened.error };
  const unlisted = unlistedTables(opened.snapshot);
  if (unlisted.length > 0) {
    opened.snapshot.close();
    return { ok: false, error: { kind: "schema_mismatch", message: `the SQLite file has tables this version does not know how to copy: ${unlisted.join(", ")}` } };
  }
  const memory = options.memoryDir === undefined ? { ok: true as const, files: [] } : await readMemoryFiles(options.memoryDir);
  if (!memory.ok) {
    opened.snapshot.close();
    return { ok: false, error: { kind: "source_unusable", message: memory.message } };
  }
  const db = connectPostgres(options.databaseUrl, "hermes-db-copy");
  try {
    const prepared = await prepareTarget(db, opened.snapshot, target);
    if (!prepared.ok) return prepared;
    const copied = await copyInOneTransaction(db, opened.snapshot, prepared.columns, memory.files, options);
    return copied.ok ? { ok: true, source: options.file, target, tables: copied.tables } : copied;
  } finally {
    opened.snapshot.close();
    await db.destroy();
  }
}

/** A table nobody listed would be left behind while every count still matched. */
function unlistedTables(snapshot: SqliteSnapshot): string[] {
  return snapshot.tables().filter((name) => !SQLITE_ONLY_TABLES.has(name) && !COPIED_TABLES.some((table) => table.name === name));
}

type Columns = ReadonlyMap<string, readonly string[]>;

/** Migrates the target and checks that both sides have the same columns; returns the columns to copy per table. */
async function prepareTarget(db: Kysely<Database>, snapshot: SqliteSnapshot, target: string): Promise<{ ok: true; columns: Columns } | { ok: false; error: CopyError }> {
  try {
    const migration = await migratePostgresToLatest(db);
    if (!migration.ok) return { ok: false, error: { kind: "target_unusable", message: `${target}: ${migration.error.message}` } };
    const columns = new Map<string, readonly string[]>();
    for (const table of COPIED_TABLES) {
      const source = snapshot.columns(table.name);
      const destination = await insertableColumns(db, table.name);
      const missing = source.filter((column) => !destination.includes(column));
      const extra = destination.filter((column) => !source.includes(column));
      if (missing.length > 0 || extra.length > 0) {
        const differences = [...missing.map((column) => `${column} only in SQLite`), ...extra.map((column) => `${column} only in PostgreSQL`)];
        return { ok: false, error: { kind: "schema_mismatch", message: `table ${table.name} differs: ${differences.join(", ")}` } };
      }
      columns.set(table.name, source);
    }
    return { ok: true, columns };
  } catch (error) {
    return { ok: false, error: { kind: "target_unusable", message: `${target}: ${describe(error)}` } };
  }
}

type CopyOutcome = { ok: true; tables: TableCopyCount[] } | { ok: false; error: CopyError };

/** Commits only a complete, verified copy; anything else rolls the whole copy back. */
async function copyInOneTransaction(db: Kysely<Database>, snapshot: SqliteSnapshot, columns: Columns, memoryFiles: readonly MemoryFile[], options: CopyToPostgresOptions): Promise<CopyOutcome> {
  let trx: ControlledTransaction<Database> | undefined;
  try {
    trx = await db.startTransaction().execute();
    const outcome = await copyAll(trx, snapshot, columns, memoryFiles, options);
    await (outcome.ok ? trx.commit() : trx.rollback()).execute();
    return outcome;
  } catch (error) {
    await trx?.rollback().execute().catch(() => undefined);
    if (error instanceof TableCopyError) {
      return { ok: false, error: { kind: "copy_failed", table: error.table, message: `copying ${error.table} failed: ${error.message}; nothing was committed` } };
    }
    return { ok: false, error: { kind: "copy_failed", message: `${describe(error)}; nothing was committed` } };
  }
}

async function copyAll(trx: Kysely<Database>, snapshot: SqliteSnapshot, columns: Columns, memoryFiles: readonly MemoryFile[], options: CopyToPostgresOptions): Promise<CopyOutcome> {
  const names = COPIED_TABLES.map((table) => table.name);
  await lockTables(trx, names, options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS);
  const occupied = await tablesWithRows(trx, names);
  if (occupied.length > 0) {
    const message = `the target database already holds rows (in ${occupied.join(", ")}); copy only into an empty database. Nothing was written`;
    return { ok: false, error: { kind: "target_not_empty", tables: occupied, message } };
  }
  const tables: TableCopyCount[] = [];
  for (const table of COPIED_TABLES) {
    let valuesWithNulRemoved = await copyTable(trx, snapshot, table, columns.get(table.name) ?? [], options.batchSize ?? DEFAULT_BATCH_SIZE);
    let sqliteRows = snapshot.count(table.name);
    const fromFiles = table.name === "memory_documents" ? memoryFiles.length : 0;
    if (fromFiles > 0) {
      valuesWithNulRemoved += await insertMemoryFiles(trx, memoryFiles, (options.now ?? Date.now)(), options.batchSize ?? DEFAULT_BATCH_SIZE).catch((error: unknown) => {
        throw new TableCopyError(table.name, error);
      });
      sqliteRows += fromFiles;
    }
    options.onTableCopied?.(table.name, sqliteRows);
    tables.push({ table: table.name, sqliteRows, postgresRows: 0, valuesWithNulRemoved, ...(fromFiles > 0 && { fromFiles }) });
  }
  await advanceSequences(trx, COPIED_TABLES, (table) => snapshot.issuedIds(table));
  for (const count of tables) count.postgresRows = await countRows(trx, count.table);
  const differing = tables.filter((count) => count.sqliteRows !== count.postgresRows);
  if (differing.length > 0) {
    const detail = differing.map((count) => `${count.table}: ${count.sqliteRows} in SQLite, ${count.postgresRows} in PostgreSQL`).join("; ");
    return { ok: false, error: { kind: "counts_differ", tables, message: `row counts differ after the copy (${detail}); nothing was committed` } };
  }
  return { ok: true, tables };
}

/** A statement of one table's copy failed (a value PostgreSQL refuses, a lost connection); names the table. */
class TableCopyError extends Error {
  constructor(readonly table: string, cause: unknown) {
    super(describe(cause));
  }
}

/** Copies one table's rows in batches; returns how many values had NUL characters taken out. */
async function copyTable(trx: Kysely<Database>, snapshot: SqliteSnapshot, table: CopiedTable, columns: readonly string[], batchSize: number): Promise<number> {
  const later = new Set(table.selfReferences ?? []);
  const laterIndexes = columns.flatMap((column, index) => (later.has(column) ? [index] : []));
  let valuesWithNulRemoved = 0;
  const withoutNul = (value: SqliteValue): SqliteValue => {
    const stripped = stripNul(value);
    if (stripped !== value) valuesWithNulRemoved += 1;
    return stripped;
  };
  try {
    for (const batch of snapshot.batches(table.name, columns, rowsPerStatement(batchSize, columns.length))) {
      const rows = batch.map((row) => row.map((value, index) => (laterIndexes.includes(index) ? null : withoutNul(value))));
      await insertRows(trx, table.name, columns, rows);
    }
    for (const column of later) {
      for (const pairs of snapshot.batches(table.name, ["id", column], batchSize, { notNull: column })) {
        await setColumnById(trx, table.name, column, pairs.map(([id, value]) => [stripNul(id ?? null), withoutNul(value ?? null)]));
      }
    }
  } catch (error) {
    throw new TableCopyError(table.name, error);
  }
  return valuesWithNulRemoved;
}

/** PostgreSQL's text refuses NUL; the repositories drop it from what they write there too (messages.ts). */
function stripNul(value: SqliteValue): SqliteValue {
  return typeof value === "string" && value.includes("\u0000") ? value.replaceAll("\u0000", "") : value;
}
