import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../test/support/test-database.js";
import { waitUntil } from "../../../../test/support/wait-until.js";
import { openStore, tryOpenStore } from "../open-store.js";

const databases: TestDatabase[] = [];
/** Kysely's PostgresAdapter takes this advisory lock around migrations (node_modules/kysely/…/postgres-adapter.js). */
const MIGRATION_LOCK_ID = "3853314791062309107";
afterEach(async () => {
  for (const database of databases.splice(0)) await database.drop();
});

describe("openStore with a databaseUrl", () => {
  it("reports the database writable while open, and closed after close", async () => {
    const database = await createTestDatabase();
    databases.push(database);
    const store = await openStore({ file: ":memory:", databaseUrl: database.url });
    expect(await store.checkWritable()).toEqual({ ok: true });
    // Twice in a row: the probe's connection went back to the pool in a usable state.
    expect(await store.checkWritable()).toEqual({ ok: true });
    await store.close();
    expect(await store.checkWritable()).toEqual({ ok: false, error: "the database is closed" });
  });

  it("waits for another process's migrations past the store's statement timeout, then opens", async () => {
    const database = await createTestDatabase();
    databases.push(database);
    const other = new pg.Client({ connectionString: database.url });
    await other.connect();
    try {
      // Kysely's migration lock (postgres-adapter.js), held as by a process whose migrations take long.
      await other.query(`SELECT pg_advisory_lock(${MIGRATION_LOCK_ID})`);
      const opening = tryOpenStore({ file: ":memory:", databaseUrl: database.url, statementTimeoutMs: 100 });
      const waiting = "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%pg_advisory_lock%'";
      await waitUntil(async () => (await other.query(waiting)).rows.length > 0, "the opening store to wait for the lock");
      // Five times the statement timeout, by the server's clock: before, the wait was cancelled at 100 ms.
      await other.query("SELECT pg_sleep(0.5)");
      await other.query(`SELECT pg_advisory_unlock(${MIGRATION_LOCK_ID})`);
      const opened = await opening;
      expect(opened.ok).toBe(true);
      if (!opened.ok) return;
      expect(await opened.store.checkWritable()).toEqual({ ok: true });
      await opened.store.close();
    } finally {
      await other.end();
    }
  });

  it("fails to open an unreachable server as a value, naming it without the password", async () => {
    const opened = await tryOpenStore({ file: ":memory:", databaseUrl: "postgres://hermes:hunter2-secret@127.0.0.1:1/nowhere" });
    expect(opened.ok).toBe(false);
    if (opened.ok) return;
    expect(opened.error.kind).toBe("open_failed");
    expect(opened.error.message).toContain("postgres://hermes:***@127.0.0.1:1/nowhere");
    expect(opened.error.message).not.toContain("hunter2-secret");
  });
});
