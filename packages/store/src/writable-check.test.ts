import BetterSqlite3 from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { assistantMessage, dmSession, storeFixtures, userMessage } from "./test-fixtures.js";
import { createWritableCheck } from "./writable-check.js";

const fixtures = storeFixtures();
const connections: BetterSqlite3.Database[] = [];
afterEach(async () => {
  for (const connection of connections.splice(0)) if (connection.open) connection.close();
  await fixtures.cleanup();
});

function connect(file: string, options?: BetterSqlite3.Options): BetterSqlite3.Database {
  const connection = new BetterSqlite3(file, options);
  connections.push(connection);
  return connection;
}

describe("store.checkWritable", () => {
  it("is ok on an open store and changes nothing", async () => {
    const { store, file } = await fixtures.openNew();
    const before = connect(file).pragma("user_version", { simple: true });
    expect(await store.checkWritable()).toEqual({ ok: true });
    expect(connect(file).pragma("user_version", { simple: true })).toBe(before);
    await store.deliveries.enqueue({ platform: "telegram", chatId: "1", text: "still writable", kind: "notice" });
    expect(await store.deliveries.countPending()).toBe(1);
  });

  it("fails with the cause while another process holds the write lock, and recovers after", async () => {
    const { store, file } = await fixtures.openNew();
    const other = connect(file);
    other.prepare("BEGIN IMMEDIATE").run();
    expect(await store.checkWritable()).toEqual({ ok: false, error: "database is locked" });
    other.prepare("ROLLBACK").run();
    expect(await store.checkWritable()).toEqual({ ok: true });
  });

  it("fails on a read-only connection, which SQLite still grants the write lock", async () => {
    const { file } = await fixtures.openNew();
    const check = createWritableCheck(connect(file, { readonly: true }));
    expect(await check()).toEqual({ ok: false, error: "attempt to write a readonly database" });
  });

  it("leaves a transaction of the store open on its connection alone, and answers once it has committed", async () => {
    const { store } = await fixtures.openNew();
    const { session } = await store.sessions.getOrCreateActive(dmSession("u1"));
    // The append's transaction is open, between two statements, when the probe starts on the same connection.
    const appended = store.messages.append(session.id, [userMessage("question"), assistantMessage("answer")]);
    const probed = store.checkWritable();

    await appended;
    expect(await probed).toEqual({ ok: true });
    expect(await store.messages.history(session.id)).toEqual([userMessage("question"), assistantMessage("answer")]);
    expect(await store.checkWritable()).toEqual({ ok: true });
  });

  it("fails once the store is closed", async () => {
    const { store } = await fixtures.openNew();
    await store.close();
    expect(await store.checkWritable()).toEqual({ ok: false, error: "the database is closed" });
  });
});
