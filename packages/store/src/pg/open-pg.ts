import { randomUUID } from "node:crypto";
import type { Logger } from "@hermes/agent";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { connectPostgres } from "../copy/postgres-connection.js";
import type { Database } from "../database.js";
import { busyRetryPolicy, describe, maxWaitOf } from "../open-defaults.js";
import type { OpenStoreOptions, OpenStoreResult } from "../open-store.js";
import { createStore } from "../store.js";
import type { WritableCheck } from "../writable-check.js";
import { int8AsNumber } from "./int8-types.js";
import { migratePostgresToLatest } from "./migrate-pg.js";
import { createPostgresRunner } from "./pg-runner.js";
import { surviveDroppedConnections } from "./pool-errors.js";
import { redactDatabaseUrl } from "./redact-url.js";

const DEFAULT_POOL_SIZE = 10;
/** A server that does not answer within this is reported as unreachable rather than waited for. */
const CONNECT_TIMEOUT_MS = 10_000;
/** No statement of ours runs long; one that does is cut off instead of holding its connection and locks. */
const STATEMENT_TIMEOUT_MS = 30_000;
/** A transaction left open by a process that stalled is ended by the server. */
const IDLE_IN_TRANSACTION_TIMEOUT_MS = 60_000;
/** The readiness probe must answer quickly. */
const WRITABLE_PROBE_TIMEOUT_MS = 2_000;

/** Opens the PostgreSQL store: a pool, the migrations (one process at a time), then the repositories. */
export async function openPostgresStore(options: OpenStoreOptions & { databaseUrl: string }, logger: Logger): Promise<OpenStoreResult> {
  const where = redactDatabaseUrl(options.databaseUrl);
  let pool: pg.Pool;
  try {
    pool = new pg.Pool({
      connectionString: options.databaseUrl,
      types: int8AsNumber(),
      max: Math.max(1, Math.floor(options.poolSize ?? DEFAULT_POOL_SIZE)),
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      statement_timeout: Math.max(1, Math.floor(options.statementTimeoutMs ?? STATEMENT_TIMEOUT_MS)),
      idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
      application_name: "hermes",
    });
  } catch (error) {
    return { ok: false, error: { kind: "open_failed", message: `${where}: ${describe(error)}` } };
  }
  // The pool opens a new connection for the next query.
  surviveDroppedConnections(pool, (error) => logger.warn("a pooled PostgreSQL connection failed", { database: where, error: error.message }));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });

  let migration: Awaited<ReturnType<typeof migratePostgresToLatest>>;
  // On a connection of their own, without the store's statement timeout: a migration that rewrites a large table runs
  // for minutes, and a process starting meanwhile waits for the migration lock as long (one statement each).
  const migrating = connectPostgres(options.databaseUrl, "hermes-migrate");
  try {
    migration = await migratePostgresToLatest(migrating);
  } catch (error) {
    await db.destroy();
    return { ok: false, error: { kind: "open_failed", message: `${where}: ${describe(error)}` } };
  } finally {
    await migrating.destroy();
  }
  if (!migration.ok) {
    await db.destroy();
    logger.error("state database schema cannot be used", { database: where, ...migration.error });
    return { ok: false, error: migration.error };
  }
  if (migration.applied.length > 0) logger.info("state database migrated", { database: where, applied: migration.applied });

  const busyRetry = busyRetryPolicy(maxWaitOf(options), options.random);
  let closed = false;
  const store = createStore(
    { db, exec: createPostgresRunner(pool), now: options.now ?? Date.now, newId: options.newId ?? randomUUID, logger },
    async () => {
      if (closed) return;
      closed = true;
      await db.destroy();
    },
    () => checkPostgresWritable(pool, () => closed),
    busyRetry,
  );
  return { ok: true, store };
}

/**
 * Proves the database takes writes without changing anything: a transaction that is given a transaction id (which a
 * read-only server, a standby or a read-only transaction default refuses), then rolled back.
 */
async function checkPostgresWritable(pool: pg.Pool, isClosed: () => boolean): Promise<WritableCheck> {
  if (isClosed()) return { ok: false, error: "the database is closed" };
  let client: pg.PoolClient | undefined;
  let gaveUp = false;
  try {
    const connecting = pool.connect();
    // A connection that arrives after the probe gave up goes back to the pool.
    connecting.then((late) => (gaveUp ? late.release() : undefined), () => undefined);
    client = await withTimeout(connecting, WRITABLE_PROBE_TIMEOUT_MS, "no connection to the database").catch((error: unknown) => {
      gaveUp = true;
      throw error;
    });
    await client.query(`BEGIN READ WRITE`);
    await client.query(`SET LOCAL statement_timeout = ${WRITABLE_PROBE_TIMEOUT_MS}`);
    await client.query("SELECT txid_current()");
    await client.query("ROLLBACK");
    client.release();
    return { ok: true };
  } catch (error) {
    client?.release(error instanceof Error ? error : new Error(String(error)));
    return { ok: false, error: describe(error) };
  }
}

async function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${message} within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
