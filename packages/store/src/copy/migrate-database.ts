import { mkdir } from "node:fs/promises";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import type { Database } from "../database.js";
import { migrateToLatest } from "../migrate.js";
import { DEFAULT_BUSY_TIMEOUT_MS, describe } from "../open-defaults.js";
import type { OpenStoreError } from "../open-store.js";
import { migratePostgresToLatest } from "../pg/migrate-pg.js";
import { redactDatabaseUrl } from "../pg/redact-url.js";
import { connectPostgres } from "./postgres-connection.js";

export interface MigrateDatabaseOptions {
  /** The SQLite file, used when `databaseUrl` is not set; created (with its folder) when missing, as the store does. */
  file: string;
  /** A `postgres://` URL: that database is migrated instead of `file`. */
  databaseUrl?: string;
  /** How long to wait for another process's write lock on the SQLite file (default 5000 ms). */
  busyTimeoutMs?: number;
}

export type MigrateDatabaseResult =
  /** `database` names what was migrated for people: the file's path, or the URL without its password. */
  | { ok: true; database: string; applied: string[] }
  | { ok: false; database: string; error: OpenStoreError };

/**
 * Brings a database's schema up to date without opening a store on it (`hermes db migrate`), under the same
 * one-at-a-time rule as a store's start-up: SQLite's write lock, PostgreSQL's advisory lock.
 */
export async function migrateDatabase(options: MigrateDatabaseOptions): Promise<MigrateDatabaseResult> {
  if (options.databaseUrl !== undefined && options.databaseUrl !== "") return migratePostgres(options.databaseUrl);
  return migrateSqlite(path.resolve(options.file), options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS);
}

async function migratePostgres(databaseUrl: string): Promise<MigrateDatabaseResult> {
  const database = redactDatabaseUrl(databaseUrl);
  const db = connectPostgres(databaseUrl, "hermes-db-migrate");
  try {
    const outcome = await migratePostgresToLatest(db);
    return outcome.ok ? { ok: true, database, applied: outcome.applied } : { ok: false, database, error: outcome.error };
  } catch (error) {
    return { ok: false, database, error: { kind: "open_failed", message: describe(error) } };
  } finally {
    await db.destroy();
  }
}

async function migrateSqlite(file: string, busyTimeoutMs: number): Promise<MigrateDatabaseResult> {
  let sqlite: BetterSqlite3.Database;
  try {
    await mkdir(path.dirname(file), { recursive: true });
    sqlite = new BetterSqlite3(file);
  } catch (error) {
    return { ok: false, database: file, error: { kind: "open_failed", message: describe(error) } };
  }
  try {
    sqlite.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    // A file this creates must be the one a store would have created: WAL is a property of the file.
    sqlite.pragma("journal_mode = WAL");
    sqlite.pragma("foreign_keys = ON");
  } catch (error) {
    sqlite.close();
    return { ok: false, database: file, error: { kind: "open_failed", message: describe(error) } };
  }
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  try {
    const outcome = await migrateToLatest(db);
    return outcome.ok ? { ok: true, database: file, applied: outcome.applied } : { ok: false, database: file, error: outcome.error };
  } catch (error) {
    return { ok: false, database: file, error: { kind: "open_failed", message: describe(error) } };
  } finally {
    await db.destroy();
    if (sqlite.open) sqlite.close();
  }
}
