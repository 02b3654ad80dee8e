import { afterEach, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../test/support/test-database.js";
import { openStore, tryOpenStore } from "../open-store.js";

const databases: TestDatabase[] = [];
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

  it("fails to open an unreachable server as a value, naming it without the password", async () => {
    const opened = await tryOpenStore({ file: ":memory:", databaseUrl: "postgres://hermes:hunter2-secret@127.0.0.1:1/nowhere" });
    expect(opened.ok).toBe(false);
    if (opened.ok) return;
    expect(opened.error.kind).toBe("open_failed");
    expect(opened.error.message).toContain("postgres://hermes:***@127.0.0.1:1/nowhere");
    expect(opened.error.message).not.toContain("hunter2-secret");
  });
});
