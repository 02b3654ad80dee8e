import { silentLogger } from "@hermes/agent";
import BetterSqlite3 from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import type { Database } from "./database.js";
import { createInboundRepository } from "./inbound.js";
import { int8AsNumber } from "./pg/int8-types.js";
import { createPostgresRunner } from "./pg/pg-runner.js";
import type { SqlRunner } from "./sql-runner.js";
import { createSqliteRunner } from "./sqlite-runner.js";
import { STORE_DIALECTS, storeFixtures } from "./test-fixtures.js";

/** A connection of this test's own to the store's database, as a second process would have, with its runner. */
async function ownConnection(file: string, databaseUrl: string | undefined): Promise<{ db: Kysely<Database>; exec: SqlRunner; close(): Promise<void> }> {
  if (databaseUrl === undefined) {
    const sqlite = new BetterSqlite3(file);
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
    return { db, exec: createSqliteRunner(sqlite), close: async () => void sqlite.close() };
  }
  const pool = new pg.Pool({ connectionString: databaseUrl, types: int8AsNumber() });
  // The database is dropped (ending its connections) right after the test; a connection still closing then is no error.
  pool.on("error", () => undefined);
  // The queries run on the pool, not through Kysely, so the pool is ended here: Kysely's destroy ends only a pool it used.
  return { db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), exec: createPostgresRunner(pool), close: () => pool.end() };
}

describe.each(STORE_DIALECTS)("%s", (dialect) => {
  const fixtures = storeFixtures(dialect);
  afterEach(() => fixtures.cleanup());

  const KEY = "agent:main:telegram:dm:u1";

  function inbound(messageId: string, overrides: { status?: "queued" | "running" | "ignored"; sessionKey?: string } = {}) {
    return { platform: "telegram", messageId, payload: JSON.stringify({ text: messageId }), sessionKey: KEY, status: "queued" as const, ...overrides };
  }

  describe("inbound", () => {
    it("replaces a saved message's payload, and a duplicate then returns the new one", async () => {
      const { store } = await fixtures.openNew();
      const { record } = await store.inbound.recordIfNew(inbound("m-voice"));
      fixtures.advance(50);
      await store.inbound.setPayload(record.id, '{"text":"transcribed"}');
      expect(await store.inbound.get(record.id)).toMatchObject({ payload: '{"text":"transcribed"}', status: "queued", updatedAt: fixtures.now() });
      expect((await store.inbound.recordIfNew(inbound("m-voice"))).record.payload).toBe('{"text":"transcribed"}');
    });

    it("records a message once and returns the first record for duplicates", async () => {
      const { store } = await fixtures.openNew();
      const first = await store.inbound.recordIfNew(inbound("m1"));
      expect(first).toEqual({
        created: true,
        record: {
          id: first.record.id,
          platform: "telegram",
          messageId: "m1",
          sessionKey: KEY,
          status: "queued",
          payload: '{"text":"m1"}',
          receivedAt: fixtures.now(),
          updatedAt: fixtures.now(),
        },
      });
      fixtures.advance(100);
      const again = await store.inbound.recordIfNew({ ...inbound("m1"), payload: "changed", status: "ignored" });
      expect(again).toEqual({ created: false, record: first.record });

      const otherPlatform = await store.inbound.recordIfNew({ ...inbound("m1"), platform: "discord" });
      expect(otherPlatform.created).toBe(true);
      expect(otherPlatform.record.id).not.toBe(first.record.id);
    });

    it("keeps the trace context it was recorded with, for whoever runs or answers the message later", async () => {
      const { store } = await fixtures.openNew();
      const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
      const traced = await store.inbound.recordIfNew({ ...inbound("m1"), traceContext: { traceparent, tracestate: "vendor=abc" } });
      const withoutState = await store.inbound.recordIfNew({ ...inbound("m2"), traceContext: { traceparent } });
      // With tracing off the carrier is empty: nothing is stored.
      const untraced = await store.inbound.recordIfNew({ ...inbound("m3"), traceContext: {} });

      expect(traced.record.traceContext).toEqual({ traceparent, tracestate: "vendor=abc" });
      expect(await store.inbound.get(withoutState.record.id)).toMatchObject({ traceContext: { traceparent } });
      expect((await store.inbound.get(withoutState.record.id))?.traceContext).not.toHaveProperty("tracestate");
      expect(await store.inbound.get(untraced.record.id)).not.toHaveProperty("traceContext");
      expect(await store.inbound.claimNext(KEY)).toMatchObject({ id: traced.record.id, traceContext: { traceparent, tracestate: "vendor=abc" } });
      // A redelivery is a duplicate: the message stays in the trace it was first received in.
      const again = await store.inbound.recordIfNew({ ...inbound("m1"), traceContext: { traceparent: "00-11111111111111111111111111111111-2222222222222222-01" } });
      expect(again.record.traceContext).toEqual({ traceparent, tracestate: "vendor=abc" });
    });

    it("deduplicates concurrent deliveries of the same event", async () => {
      const { store } = await fixtures.openNew();
      const results = await Promise.all(Array.from({ length: 8 }, () => store.inbound.recordIfNew(inbound("m1"))));
      expect(results.filter((result) => result.created)).toHaveLength(1);
      expect(new Set(results.map((result) => result.record.id)).size).toBe(1);
    });

    it("records messages without a session key", async () => {
      const { store } = await fixtures.openNew();
      const { record } = await store.inbound.recordIfNew({ platform: "slack", messageId: "x", payload: "{}", status: "ignored" });
      expect(record.sessionKey).toBeUndefined();
      expect(await store.inbound.get(record.id)).toEqual(record);
      expect(await store.inbound.get(record.id + 100)).toBeUndefined();
    });

    it("updates the status", async () => {
      const { store } = await fixtures.openNew();
      const { record } = await store.inbound.recordIfNew(inbound("m1"));
      fixtures.advance(50);
      await store.inbound.setStatus(record.id, "failed");
      expect(await store.inbound.get(record.id)).toEqual({ ...record, status: "failed", updatedAt: fixtures.now() });
    });

    it("claims the oldest open message of a key, taking up an orphaned running one first", async () => {
      const { store } = await fixtures.openNew();
      const orphan = (await store.inbound.recordIfNew(inbound("m1", { status: "running" }))).record;
      const queued = (await store.inbound.recordIfNew(inbound("m2"))).record;
      const elsewhere = (await store.inbound.recordIfNew(inbound("m3", { sessionKey: "other" }))).record;

      // Only the one left running by a run cut short may have saved checkpoints: it is the one resumed.
      expect(await store.inbound.claimNext(KEY)).toMatchObject({ id: orphan.id, status: "running", resumed: true });
      await store.inbound.setStatus(orphan.id, "answered");
      expect(await store.inbound.claimNext(KEY)).toMatchObject({ id: queued.id, status: "running", resumed: false });
      expect(await store.inbound.claimNext(KEY)).toMatchObject({ id: queued.id, status: "running", resumed: true });
      expect(await store.inbound.get(queued.id)).toMatchObject({ status: "running" });
      await store.inbound.setStatus(queued.id, "answered");
      expect(await store.inbound.claimNext(KEY)).toBeUndefined();
      expect(await store.inbound.get(elsewhere.id)).toMatchObject({ status: "queued" });
    });

    it("says a message was resumed when another process claimed it between the look-up and the claim", async () => {
      const { store: other, file, databaseUrl } = await fixtures.openNew();
      const queued = (await other.inbound.recordIfNew(inbound("m1"))).record;
      const connection = await ownConnection(file, databaseUrl);
      try {
        const { exec } = connection;
        let theirs: ReturnType<typeof other.inbound.claimNext> | undefined;
        // The other process (a new lease holder while this one stalled) claims the message right after this one read it.
        const interleaved: SqlRunner = {
          ...exec,
          first: async (query) => {
            const row = await exec.first(query);
            theirs ??= other.inbound.claimNext(KEY);
            await theirs;
            return row;
          },
        };
        const ctx = { db: connection.db, exec: interleaved, now: fixtures.now, newId: () => "s", logger: silentLogger };
        const ours = await createInboundRepository(ctx).claimNext(KEY);
        expect(await theirs).toMatchObject({ id: queued.id, resumed: false });
        // Taken up as a run already under way, so its checkpoints are read.
        expect(ours).toMatchObject({ id: queued.id, status: "running", resumed: true });
      } finally {
        await connection.close();
      }
    });

    it("counts unanswered messages and cancels the queued ones", async () => {
      const { store } = await fixtures.openNew();
      await store.inbound.recordIfNew(inbound("m1", { status: "running" }));
      await store.inbound.recordIfNew(inbound("m2"));
      await store.inbound.recordIfNew(inbound("m3"));
      await store.inbound.recordIfNew(inbound("m4", { status: "ignored" }));
      await store.inbound.recordIfNew(inbound("m5", { sessionKey: "other" }));

      expect(await store.inbound.unanswered(KEY)).toBe(3);
      expect(await store.inbound.cancelQueued(KEY)).toBe(2);
      expect(await store.inbound.unanswered(KEY)).toBe(1);
      expect(await store.inbound.unanswered("other")).toBe(1);
      expect(await store.inbound.cancelQueued(KEY)).toBe(0);
      const statuses = (await store.inbound.recent(10)).map((record) => `${record.messageId}:${record.status}`);
      expect(statuses).toEqual(["m5:queued", "m4:ignored", "m3:cancelled", "m2:cancelled", "m1:running"]);
    });

    it("lists recent messages newest first up to the limit", async () => {
      const { store } = await fixtures.openNew();
      for (const id of ["a", "b", "c"]) await store.inbound.recordIfNew(inbound(id));
      expect((await store.inbound.recent(2)).map((record) => record.messageId)).toEqual(["c", "b"]);
      expect(await store.inbound.recent(0)).toEqual([]);
    });
  });
});
