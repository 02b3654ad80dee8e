import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { closedPort } from "../../../../test/support/free-port.js";
import { startPostgres, type TestPostgres } from "../../../../test/support/postgres-server.js";
import { migrationNames } from "../migrations/index.js";
import { openStore } from "../open-store.js";
import { postgresMigrationNames } from "../pg/migrations/index.js";
import { migrateDatabase } from "./migrate-database.js";

let server: TestPostgres;
let dir: string;

beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await server?.stop();
});
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "hermes-migrate-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("migrateDatabase", () => {
  it("creates and migrates a SQLite file a store then opens as is, and finds nothing to do the second time", async () => {
    const file = path.join(dir, "home", "state.db");
    expect(await migrateDatabase({ file })).toEqual({ ok: true, database: file, applied: migrationNames() });
    expect(await migrateDatabase({ file })).toEqual({ ok: true, database: file, applied: [] });
    const sqlite = new BetterSqlite3(file, { readonly: true });
    expect(sqlite.pragma("journal_mode", { simple: true })).toBe("wal");
    sqlite.close();
    const store = await openStore({ file });
    expect(await store.sessions.listRecent()).toEqual([]);
    await store.close();
  });

  it("migrates a PostgreSQL database once and names it without its password", async () => {
    const url = new URL(await server.createDatabase("migrate_target"));
    url.password = "not-needed-here";
    const databaseUrl = url.toString();
    const first = await migrateDatabase({ file: path.join(dir, "unused.db"), databaseUrl });
    expect(first).toMatchObject({ ok: true, applied: postgresMigrationNames() });
    expect(first.database).toContain(":***@127.0.0.1");
    expect(first.database).not.toContain("not-needed-here");
    expect(await migrateDatabase({ file: path.join(dir, "unused.db"), databaseUrl })).toMatchObject({ ok: true, applied: [] });
  });

  it("reports a server it cannot reach as a value", async () => {
    const result = await migrateDatabase({ file: path.join(dir, "unused.db"), databaseUrl: `postgres://hermes@127.0.0.1:${await closedPort()}/none` });
    expect(result).toMatchObject({ ok: false, error: { kind: "open_failed", message: expect.stringMatching(/ECONNREFUSED|connect/) } });
  });

  it("refuses a SQLite file written by a newer version", async () => {
    const file = path.join(dir, "state.db");
    await migrateDatabase({ file });
    const sqlite = new BetterSqlite3(file);
    sqlite.prepare("INSERT INTO kysely_migration (name, timestamp) VALUES ('9999_from_the_future', '2030-01-01')").run();
    sqlite.close();
    expect(await migrateDatabase({ file })).toMatchObject({ ok: false, error: { kind: "newer_schema", unknownMigrations: ["9999_from_the_future"] } });
  });
});
