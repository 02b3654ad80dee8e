import { silentLogger } from "@hermes/agent";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../test/support/test-database.js";
import { waitUntil } from "../../../../test/support/wait-until.js";
import type { Database } from "../database.js";
import { createMessageRepository } from "../messages.js";
import { createSessionRepository } from "../sessions.js";
import { dmSession, storeFixtures, userMessage } from "../test-fixtures.js";
import { int8AsNumber } from "./int8-types.js";
import { createPostgresRunner } from "./pg-runner.js";

/** The store's own connections (application_name "hermes") on the database, as the server lists them. */
const STORE_BACKENDS = "SELECT pid, wait_event_type FROM pg_stat_activity WHERE application_name = 'hermes' AND datname = current_database()";

describe("the PostgreSQL store on a server that changes under it", () => {
  const fixtures = storeFixtures("postgres");
  const admins: pg.Client[] = [];
  afterEach(async () => {
    for (const admin of admins.splice(0)) await admin.end();
    await fixtures.cleanup();
  });

  async function storeWithAdmin() {
    const { store, databaseUrl } = await fixtures.openNew({ poolSize: 1 });
    const admin = new pg.Client({ connectionString: databaseUrl, application_name: "hermes-test-admin" });
    await admin.connect();
    admins.push(admin);
    return { store, admin };
  }

  it("finishes transactions and plain statements issued together on a pool of one connection", async () => {
    const { store } = await fixtures.openNew({ poolSize: 1 });
    const { session } = await store.sessions.getOrCreateActive(dmSession("u1"));
    // A transaction holds the one connection; were any of its statements sent through the pool, it would wait forever.
    const results = await Promise.all(
      Array.from({ length: 12 }, async (_, index) => {
        const { record } = await store.inbound.recordIfNew({ platform: "telegram", messageId: `m${index}`, payload: "{}", sessionKey: session.key, status: "running" });
        const [finished, read] = await Promise.all([
          store.completeRun({ inboundId: record.id, sessionId: session.id, messages: [userMessage(`q${index}`)], deliveries: [] }),
          store.sessions.get(session.id),
          store.toolCheckpoints.recordStep({ inboundId: record.id, step: 1, message: { index } }),
        ]);
        return { finished, read };
      }),
    );
    expect(results.every(({ finished, read }) => finished.ok && read?.id === session.id)).toBe(true);
    expect(await store.messages.count(session.id)).toBe(12);
  });

  it("survives its connection being cut inside a transaction: that run fails with the server's reason, the next one commits", async () => {
    const { store, admin } = await storeWithAdmin();
    const { session } = await store.sessions.getOrCreateActive(dmSession("u1"));
    const { record } = await store.inbound.recordIfNew({ platform: "telegram", messageId: "m1", payload: "{}", sessionKey: session.key, status: "running" });
    // The inbound row held elsewhere keeps completeRun waiting inside its transaction, on the pool's one connection.
    await admin.query("BEGIN");
    await admin.query("SELECT id FROM inbound WHERE id = $1 FOR UPDATE", [record.id]);
    const finish = { inboundId: record.id, sessionId: session.id, messages: [userMessage("hello")], deliveries: [] };
    const cut = store.completeRun(finish).then(
      () => undefined,
      (error: unknown) => error,
    );
    await waitUntil(async () => (await admin.query(STORE_BACKENDS)).rows.some((row) => row.wait_event_type === "Lock"), "completeRun to wait for the row");
    for (const { pid } of (await admin.query(STORE_BACKENDS)).rows) await admin.query("SELECT pg_terminate_backend($1)", [pid]);
    await admin.query("ROLLBACK");

    // Before, the dropped client's 'error' event had no listener: an uncaught exception, which ends a process.
    expect(await cut).toMatchObject({ code: "57P01", message: expect.stringContaining("terminating connection") });
    expect(await store.completeRun(finish)).toEqual({ ok: true, sessionId: session.id });
    expect(await store.messages.history(session.id)).toEqual([userMessage("hello")]);
    expect(await store.checkWritable()).toEqual({ ok: true });
  });

  it("reads a table through its prepared statements after a newer version's migration added a column to it", async () => {
    const { store, admin } = await storeWithAdmin();
    const { session } = await store.sessions.getOrCreateActive(dmSession("u1"));
    const { record } = await store.inbound.recordIfNew({ platform: "telegram", messageId: "m1", payload: "{}", sessionKey: session.key, status: "queued" });
    // Prepared on the pool's one connection as SELECT * / RETURNING *.
    expect(await store.sessions.get(session.id)).toEqual(session);
    expect(await store.inbound.get(record.id)).toEqual(record);

    await admin.query("ALTER TABLE sessions ADD COLUMN added_later text");
    await admin.query("ALTER TABLE inbound ADD COLUMN added_later text");

    // Each statement fails once with "cached plan must not change result type" and is planned afresh.
    expect(await store.sessions.get(session.id)).toEqual(session);
    expect(await store.sessions.getOrCreateActive(dmSession("u1"))).toEqual({ session, created: false });
    expect(await store.inbound.claimNext(session.key)).toMatchObject({ id: record.id, status: "running", resumed: false });
    expect(await store.inbound.get(record.id)).toMatchObject({ id: record.id, status: "running" });
  });
});

describe("the PostgreSQL runner's named prepared statements", () => {
  const databases: TestDatabase[] = [];
  const pools: pg.Pool[] = [];
  afterEach(async () => {
    for (const pool of pools.splice(0)) await pool.end();
    for (const database of databases.splice(0)) await database.drop();
  });

  it("keeps a bounded number per connection however many lengths of message batches it inserts", async () => {
    const database = await createTestDatabase();
    databases.push(database);
    const pool = new pg.Pool({ connectionString: database.url, types: int8AsNumber(), max: 1 });
    pools.push(pool);
    let ids = 0;
    const ctx = { db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), exec: createPostgresRunner(pool), now: () => 1, newId: () => `s${++ids}`, logger: silentLogger };
    const { session } = await createSessionRepository(ctx).getOrCreateActive(dmSession("u1"));
    const messages = createMessageRepository(ctx);
    for (let length = 1; length <= 40; length += 1) {
      await messages.append(session.id, Array.from({ length }, (_, index) => userMessage(`m${index}`)));
    }

    expect(await messages.count(session.id)).toBe((40 * 41) / 2);
    // The pool's one connection: at most the 16 lengths kept prepared (the first seen in this test process, which
    // other test files share) are named there; the others ran unnamed.
    const prepared = await pool.query<{ statement: string }>("SELECT statement FROM pg_prepared_statements");
    expect(prepared.rows.filter((row) => row.statement.startsWith('insert into "messages"')).length).toBeLessThanOrEqual(16);
  });
});
