import { stat } from "node:fs/promises";
import BetterSqlite3 from "better-sqlite3";
import { migrationNames } from "../migrations/index.js";
import { DEFAULT_BUSY_TIMEOUT_MS, describe } from "../open-defaults.js";
import { migrateDatabase } from "./migrate-database.js";

/** A stored SQLite value; integers come as bigint, so ids and times of any size are copied exactly. */
export type SqliteValue = string | number | bigint | Buffer | null;

export type SourceError = { kind: "source_missing"; message: string } | { kind: "source_unusable"; message: string };

/** One consistent view of the SQLite file (a read transaction): what a writer commits meanwhile is not in it. */
export interface SqliteSnapshot {
  /** Every table of the file, its own and FTS5's included. */
  tables(): string[];
  /** The table's stored columns, in table order (hidden and virtual ones left out). */
  columns(table: string): string[];
  count(table: string): number;
  /**
   * The highest id AUTOINCREMENT has handed out for the table (sqlite_sequence), which rows deleted since (retention)
   * may have held; undefined for a table without one.
   */
  issuedIds(table: string): number | undefined;
  /** The rows in rowid order, at most `size` at a time, values in the order of `columns`. */
  batches(table: string, columns: readonly string[], size: number, options?: { notNull?: string }): Generator<SqliteValue[][]>;
  /** Ends the read transaction and closes the file; again does nothing. */
  close(): void;
}

/**
 * Opens the SQLite file read-only for copying. An older schema is migrated first (the only write), so the rows have
 * the columns the PostgreSQL schema expects; a missing file is reported, never created.
 */
export async function openSqliteSnapshot(file: string, busyTimeoutMs = DEFAULT_BUSY_TIMEOUT_MS): Promise<{ ok: true; snapshot: SqliteSnapshot } | { ok: false; error: SourceError }> {
  try {
    await stat(file);
  } catch {
    return { ok: false, error: { kind: "source_missing", message: `there is no SQLite database at ${file}` } };
  }
  const state = withReadOnly(file, busyTimeoutMs, migrationState);
  if (!state.ok) return { ok: false, error: { kind: "source_unusable", message: `${file}: ${state.message}` } };
  if (state.value.unknown.length > 0) {
    return {
      ok: false,
      error: { kind: "source_unusable", message: `${file} was written by a newer version (unknown migrations: ${state.value.unknown.join(", ")}); upgrade this program` },
    };
  }
  if (state.value.pending > 0) {
    const migrated = await migrateDatabase({ file, busyTimeoutMs });
    if (!migrated.ok) return { ok: false, error: { kind: "source_unusable", message: `${file}: ${migrated.error.message}` } };
  }
  let sqlite: BetterSqlite3.Database;
  try {
    sqlite = openReadOnly(file, busyTimeoutMs);
  } catch (error) {
    return { ok: false, error: { kind: "source_unusable", message: `${file}: ${describe(error)}` } };
  }
  try {
    sqlite.prepare("BEGIN").run();
    // The snapshot starts at the transaction's first read, not at BEGIN.
    sqlite.prepare("SELECT count(*) FROM sqlite_master").get();
  } catch (error) {
    sqlite.close();
    return { ok: false, error: { kind: "source_unusable", message: `${file}: ${describe(error)}` } };
  }
  return { ok: true, snapshot: snapshotOf(sqlite) };
}

function snapshotOf(sqlite: BetterSqlite3.Database): SqliteSnapshot {
  return {
    tables: () => (sqlite.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).all() as Array<{ name: string }>).map((row) => row.name),
    columns: (table) => {
      const rows = sqlite.prepare(`SELECT name, hidden FROM pragma_table_xinfo(?) ORDER BY cid`).all(table) as Array<{ name: string; hidden: number }>;
      return rows.filter((row) => row.hidden === 0).map((row) => row.name);
    },
    count: (table) => Number((sqlite.prepare(`SELECT count(*) AS n FROM ${quoted(table)}`).get() as { n: number }).n),
    issuedIds: (table) => {
      if (sqlite.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_sequence'`).get() === undefined) return undefined;
      const row = sqlite.prepare(`SELECT seq FROM sqlite_sequence WHERE name = ?`).get(table) as { seq: number } | undefined;
      return row === undefined ? undefined : Number(row.seq);
    },
    *batches(table, columns, size, options = {}) {
      const where = options.notNull === undefined ? "" : ` WHERE ${quoted(options.notNull)} IS NOT NULL`;
      const statement = sqlite.prepare(`SELECT ${columns.map(quoted).join(", ")} FROM ${quoted(table)}${where} ORDER BY rowid`).raw(true).safeIntegers(true);
      let batch: SqliteValue[][] = [];
      for (const row of statement.iterate() as IterableIterator<SqliteValue[]>) {
        batch.push(row);
        if (batch.length >= size) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length > 0) yield batch;
    },
    close: () => {
      if (!sqlite.open) return;
      if (sqlite.inTransaction) sqlite.prepare("COMMIT").run();
      sqlite.close();
    },
  };
}

interface MigrationState {
  pending: number;
  unknown: string[];
}

function migrationState(sqlite: BetterSqlite3.Database): MigrationState {
  const table = sqlite.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'kysely_migration'`).get();
  const applied = table === undefined ? [] : (sqlite.prepare(`SELECT name FROM kysely_migration ORDER BY name`).all() as Array<{ name: string }>).map((row) => row.name);
  const known = migrationNames();
  return { pending: known.filter((name) => !applied.includes(name)).length, unknown: applied.filter((name) => !known.includes(name)) };
}

function withReadOnly<T>(file: string, busyTimeoutMs: number, use: (sqlite: BetterSqlite3.Database) => T): { ok: true; value: T } | { ok: false; message: string } {
  let sqlite: BetterSqlite3.Database | undefined;
  try {
    sqlite = openReadOnly(file, busyTimeoutMs);
    return { ok: true, value: use(sqlite) };
  } catch (error) {
    return { ok: false, message: describe(error) };
  } finally {
    sqlite?.close();
  }
}

function openReadOnly(file: string, busyTimeoutMs: number): BetterSqlite3.Database {
  const sqlite = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    sqlite.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
  } catch (error) {
    sqlite.close();
    throw error;
  }
  return sqlite;
}

function quoted(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}
