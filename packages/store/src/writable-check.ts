import type BetterSqlite3 from "better-sqlite3";

export type WritableCheck = { ok: true } | { ok: false; error: string };

/** How long the probe waits for another process's write lock; readiness must answer quickly. */
export const WRITABLE_PROBE_BUSY_MS = 500;

/**
 * Proves the database takes writes without changing anything: it takes the write lock, rewrites the header's
 * user_version with its own value and rolls back. Taking the lock alone is not enough, since a read-only
 * connection is granted it too. Runs synchronously, so no other statement of this connection can interleave with it.
 *
 * The store's runner keeps a transaction open across awaits (sqlite-runner.ts), so one may be open on this very
 * connection when the probe starts: the probe then reports the lock taken (the caller tries again after a pause) and
 * rolls back only a transaction it began itself; its ROLLBACK had undone the open transaction's first statements, the
 * rest then committing one by one and its COMMIT failing.
 */
export function createWritableCheck(sqlite: BetterSqlite3.Database, busyMs = WRITABLE_PROBE_BUSY_MS): () => Promise<WritableCheck> {
  return async () => {
    if (!sqlite.open) return { ok: false, error: "the database is closed" };
    if (sqlite.inTransaction) return { ok: false, error: "database is locked by a transaction of this store" };
    const previousBusy = Number(sqlite.pragma("busy_timeout", { simple: true }));
    let began = false;
    try {
      sqlite.pragma(`busy_timeout = ${busyMs}`);
      const version = Number(sqlite.pragma("user_version", { simple: true }));
      sqlite.prepare("BEGIN IMMEDIATE").run();
      began = true;
      sqlite.pragma(`user_version = ${version}`);
      return { ok: true };
    } catch (error) {
      return { ok: false, error: error instanceof Error ? error.message : String(error) };
    } finally {
      if (began && sqlite.inTransaction) sqlite.prepare("ROLLBACK").run();
      if (sqlite.open) sqlite.pragma(`busy_timeout = ${previousBusy}`);
    }
  };
}
