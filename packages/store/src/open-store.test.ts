import { writeFile } from "node:fs/promises";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { migrationNames } from "./migrations/index.js";
import { openStore, StoreOpenError, tryOpenStore } from "./open-store.js";
import { dmSession, storeFixtures, userMessage } from "./test-fixtures.js";

const fixtures = storeFixtures();
afterEach(() => fixtures.cleanup());

describe("openStore", () => {
  it("creates the folder and a WAL database with the whole schema", async () => {
    const folder = await fixtures.folder();
    const file = path.join(folder, "nested", "deeper", "state.db");
    const store = await fixtures.open(file);
    await store.sessions.getOrCreateActive(dmSession("u1"));

    const raw = new BetterSqlite3(file, { readonly: true });
    try {
      expect(raw.pragma("journal_mode", { simple: true })).toBe("wal");
      const applied = raw.prepare("SELECT name FROM kysely_migration ORDER BY name").pluck().all();
      expect(applied).toEqual(migrationNames());
      const tables = raw.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all();
      expect(tables).toEqual(
        expect.arrayContaining(["sessions", "messages", "messages_fts", "inbound", "deliveries", "usage", "pairing_requests", "approved_users", "pairing_failures", "chat_settings"]),
      );
    } finally {
      raw.close();
    }
  });

  it("enforces foreign keys", async () => {
    const { store } = await fixtures.openNew();
    await expect(store.messages.append("no-such-session", [userMessage("hi")])).rejects.toThrow(/FOREIGN KEY/);
  });

  it("keeps data across close and reopen, and applies no migration twice", async () => {
    const { store, file } = await fixtures.openNew();
    const { session } = await store.sessions.getOrCreateActive(dmSession("u1"));
    await store.close();
    await store.close();

    const reopened = await fixtures.open(file);
    expect(await reopened.sessions.get(session.id)).toEqual(session);
    const raw = new BetterSqlite3(file, { readonly: true });
    try {
      expect(raw.prepare("SELECT count(*) FROM kysely_migration").pluck().get()).toBe(migrationNames().length);
    } finally {
      raw.close();
    }
  });

  it("lists migration names in the order they apply", () => {
    const names = migrationNames();
    expect(names[0]).toBe("0001_initial");
    expect([...names].sort()).toEqual(names);
  });

  it("reports a database from a newer version as an error value and leaves it untouched", async () => {
    const { store, file } = await fixtures.openNew();
    await store.close();
    const raw = new BetterSqlite3(file);
    raw.prepare("INSERT INTO kysely_migration (name, timestamp) VALUES ('9999_future', '2100-01-01T00:00:00.000Z')").run();
    raw.close();

    const result = await tryOpenStore({ file });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.kind).toBe("newer_schema");
    expect(result.error.message).toContain("9999_future");

    await expect(openStore({ file })).rejects.toBeInstanceOf(StoreOpenError);
    const check = new BetterSqlite3(file, { readonly: true });
    try {
      expect(check.prepare("SELECT count(*) FROM kysely_migration").pluck().get()).toBe(migrationNames().length + 1);
    } finally {
      check.close();
    }
  });

  it("reports a file that is not a database as an error value", async () => {
    const file = path.join(await fixtures.folder(), "state.db");
    await writeFile(file, "this is not sqlite, just some text that is long enough to fill a header ".repeat(20));
    const result = await tryOpenStore({ file });
    expect(result).toMatchObject({ ok: false, error: { kind: "open_failed" } });
  });

  it("waits for another connection's write lock no longer than busyTimeoutMs", async () => {
    const { store, file } = await fixtures.openNew({ busyTimeoutMs: 0 });
    const other = new BetterSqlite3(file);
    try {
      other.prepare("BEGIN IMMEDIATE").run();
      await expect(store.pairing.recordFailure("telegram", 1)).rejects.toMatchObject({ code: "SQLITE_BUSY" });
      other.prepare("COMMIT").run();
      await store.pairing.recordFailure("telegram", 1);
      expect(await store.pairing.failuresSince("telegram", 0)).toBe(1);
    } finally {
      other.close();
    }
  });

  it("opens several stores on one new file at the same time", async () => {
    const file = path.join(await fixtures.folder(), "state.db");
    const stores = await Promise.all([fixtures.open(file), fixtures.open(file), fixtures.open(file)]);
    await stores[0]?.chatSettings.set("slack", "C1", { mentionMode: "all" });
    for (const store of stores) expect(await store.chatSettings.get("slack", "C1")).toEqual({ mentionMode: "all" });
  });
});

describe("openStore in memory", () => {
  it("works without a file for throwaway uses", async () => {
    const store = await openStore({ file: ":memory:" });
    try {
      const { created } = await store.sessions.getOrCreateActive(dmSession("u1"));
      expect(created).toBe(true);
    } finally {
      await store.close();
    }
  });
});

describe("openStore while another process holds the write lock", () => {
  it("reports the lock timeout as an error value", async () => {
    const file = path.join(await fixtures.folder(), "state.db");
    const other = new BetterSqlite3(file);
    try {
      other.pragma("journal_mode = WAL");
      other.prepare("BEGIN IMMEDIATE").run();
      const result = await tryOpenStore({ file, busyTimeoutMs: 0 });
      expect(result).toMatchObject({ ok: false, error: { kind: "open_failed", message: expect.stringMatching(/locked|busy/i) } });
    } finally {
      other.close();
    }
  });
});
