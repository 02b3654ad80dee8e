import { randomUUID } from "node:crypto";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "@hermes/agent";
import BetterSqlite3 from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import type { Database } from "./database.js";
import { migrateToLatest, type MigrationError } from "./migrate.js";
import { openPostgresStore } from "./pg/open-pg.js";
import { createSqliteRunner } from "./sqlite-runner.js";
import { createStore, type Store } from "./store.js";
import { createWritableCheck, type WritableCheck } from "./writable-check.js";
import { retryWhileBusy, type BusyRetryPolicy } from "./busy-retry.js";
import { busyRetryPolicy, describe, maxWaitOf } from "./open-defaults.js";

export interface OpenStoreOptions {
  /** Path of the SQLite file; its folder is created. `:memory:` gives a private in-memory database. */
  file: string;
  /**
   * A `postgres://` (or `postgresql://`) URL: when set, the store is that PostgreSQL database (pooled) and `file` is
   * not opened. Its migrations run under an advisory lock, so processes starting together take turns.
   */
  databaseUrl?: string;
  /** PostgreSQL only: connections the pool may open (default 10). */
  poolSize?: number;
  /** PostgreSQL only: how long one statement of the store may run before the server cancels it (default 30 s). */
  statementTimeoutMs?: number;
  logger?: Logger;
  /** Clock for every stored timestamp (epoch milliseconds). */
  now?: () => number;
  /** Source of session ids (UUIDs by default). */
  newId?: () => string;
  /**
   * How long an operation waits for another process's write lock before failing (default 5000): at open, for the
   * migrations, inside SQLite; afterwards asynchronously, between attempts (see busy-retry.ts). On PostgreSQL a
   * statement waits for a row lock inside the server, up to `statementTimeoutMs`; this bounds only the attempts
   * after a deadlock or a re-planned statement.
   */
  busyTimeoutMs?: number;
  /** In [0, 1), for the jitter of those waits (default Math.random). */
  random?: () => number;
}

export type OpenStoreError = MigrationError | { kind: "open_failed"; message: string };

export type OpenStoreResult = { ok: true; store: Store } | { ok: false; error: OpenStoreError };

/** Thrown by openStore; tryOpenStore returns the same failure as a value. */
export class StoreOpenError extends Error {
  readonly detail: OpenStoreError;
  constructor(detail: OpenStoreError) {
    super(`cannot open the state database: ${detail.message}`);
    this.name = "StoreOpenError";
    this.detail = detail;
  }
}


/**
 * How long one statement may block the thread waiting for the write lock once the store is open: a few milliseconds
 * cover a commit in progress elsewhere; anything longer is waited out asynchronously (see busy-retry.ts).
 */
const LOCK_POLL_MS = 5;
/** The readiness probe's whole wait for the write lock: /readyz must answer quickly. */
const WRITABLE_PROBE_WAIT_MS = 500;

/** A value import of the agent package would load the whole agent core into processes that only need the store. */
const quietLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => quietLogger,
};

/**
 * Opening is serialized per file within this process: a migration holds the write lock across awaits, and a second
 * connection of the same process waiting on that lock would block the only thread that could release it.
 */
const openingFiles = new Map<string, Promise<unknown>>();

/** Opens (creating if needed) the database and brings its schema up to date before returning. */
export async function tryOpenStore(options: OpenStoreOptions): Promise<OpenStoreResult> {
  if (options.databaseUrl !== undefined && options.databaseUrl !== "") {
    return openPostgresStore({ ...options, databaseUrl: options.databaseUrl }, options.logger ?? quietLogger);
  }
  const file = options.file === ":memory:" ? options.file : path.resolve(options.file);
  const previous = openingFiles.get(file) ?? Promise.resolve();
  const opening = previous.catch(() => undefined).then(() => openSerialized({ ...options, file }));
  openingFiles.set(file, opening);
  try {
    return await opening;
  } finally {
    if (openingFiles.get(file) === opening) openingFiles.delete(file);
  }
}

/** Like tryOpenStore, for callers that treat an unusable database as fatal. */
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  const result = await tryOpenStore(options);
  if (!result.ok) throw new StoreOpenError(result.error);
  return result.store;
}

async function openSerialized(options: OpenStoreOptions): Promise<OpenStoreResult> {
  const logger = options.logger ?? quietLogger;
  const maxWaitMs = maxWaitOf(options);
  let sqlite: BetterSqlite3.Database;
  try {
    if (options.file !== ":memory:") await mkdir(path.dirname(options.file), { recursive: true });
    sqlite = new BetterSqlite3(options.file);
  } catch (error) {
    return { ok: false, error: { kind: "open_failed", message: describe(error) } };
  }
  try {
    // Opening may block: nothing else of the process waits on a store that is not open yet, and a migration that
    // awaits between statements cannot be retried as a whole.
    sqlite.pragma(`busy_timeout = ${maxWaitMs}`);
    sqlite.pragma("journal_mode = WAL");
    // With WAL, NORMAL syncs at checkpoints, not at each commit: a commit survives any crash of the process (every
    // worker kill, OOM or panic the durable runs are about), and only a power loss or OS crash may roll back the last
    // commits, never corrupt the file. FULL would add an fsync to every one of the ~3 writes per message for that
    // case alone; what it could lose is a reply's 'sent' mark (sent once more) or a run's result (the run repeats).
    sqlite.pragma("synchronous = NORMAL");
    sqlite.pragma("foreign_keys = ON");
  } catch (error) {
    sqlite.close();
    return { ok: false, error: { kind: "open_failed", message: describe(error) } };
  }

  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  const close = async (): Promise<void> => {
    await db.destroy();
    if (sqlite.open) sqlite.close();
  };

  let migration: Awaited<ReturnType<typeof migrateToLatest>>;
  try {
    migration = await migrateToLatest(db);
  } catch (error) {
    // E.g. another process held the write lock past the busy timeout: the operator's problem to see, not a crash.
    await close();
    return { ok: false, error: { kind: "open_failed", message: describe(error) } };
  }
  if (!migration.ok) {
    await close();
    logger.error("state database schema cannot be used", { file: options.file, ...migration.error });
    return { ok: false, error: migration.error };
  }
  if (migration.applied.length > 0) logger.info("state database migrated", { file: options.file, applied: migration.applied });

  try {
    sqlite.pragma(`busy_timeout = ${Math.min(LOCK_POLL_MS, maxWaitMs)}`);
  } catch (error) {
    await close();
    return { ok: false, error: { kind: "open_failed", message: describe(error) } };
  }
  const now = options.now ?? Date.now;
  const busyRetry = busyRetryPolicy(maxWaitMs, options.random);
  const checkWritable = writableCheckWithoutBlocking(sqlite, { ...busyRetry, maxWaitMs: Math.min(WRITABLE_PROBE_WAIT_MS, maxWaitMs) });

  let closed = false;
  const store = createStore(
    {
      db,
      exec: createSqliteRunner(sqlite),
      now,
      newId: options.newId ?? randomUUID,
      logger,
    },
    async () => {
      if (closed) return;
      closed = true;
      await close();
    },
    checkWritable,
    busyRetry,
  );
  return { ok: true, store };
}

/** The readiness probe, waiting for the write lock between attempts like the repositories do, not inside SQLite. */
function writableCheckWithoutBlocking(sqlite: BetterSqlite3.Database, policy: BusyRetryPolicy): () => Promise<WritableCheck> {
  const probe = createWritableCheck(sqlite, Math.min(LOCK_POLL_MS, policy.maxWaitMs));
  const attempt = async (): Promise<WritableCheck> => {
    const result = await probe();
    // The probe reports the lock as a value; as an error it is retried like any busy statement.
    if (!result.ok && /database is locked/i.test(result.error)) throw Object.assign(new Error(result.error), { code: "SQLITE_BUSY" });
    return result;
  };
  return () => retryWhileBusy(attempt, policy).catch((error: unknown) => ({ ok: false, error: describe(error) }));
}
