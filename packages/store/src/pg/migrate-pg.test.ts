import BetterSqlite3 from "better-sqlite3";
import { Kysely, Migrator, PostgresDialect, sql, SqliteDialect } from "kysely";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startPostgres, type TestPostgres } from "../../../../test/support/postgres-server.js";
import type { Database } from "../database.js";
import { migrateToLatest } from "../migrate.js";
import { int8AsNumber } from "./int8-types.js";
import { migratePostgresToLatest } from "./migrate-pg.js";
import { postgresMigrationNames, postgresMigrationProvider } from "./migrations/index.js";

let server: TestPostgres;
let databaseCount = 0;
const opened: Array<Kysely<Database>> = [];

beforeAll(async () => {
  server = await startPostgres();
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((db) => db.destroy()));
});
afterAll(async () => {
  await server?.stop();
});

/** A fresh database and a pooled Kysely on it, as a process of the product would open one. */
async function freshDatabase(): Promise<{ url: string; db: Kysely<Database> }> {
  databaseCount += 1;
  const url = await server.createDatabase(`migrate_${databaseCount}`);
  return { url, db: open(url) };
}

function open(url: string): Kysely<Database> {
  const pool = new pg.Pool({ connectionString: url, max: 3, types: int8AsNumber() });
  // As the product's pools do (pg/open-pg.ts): an idle connection the server ends (the server stopping after the last
  // test while a closing pool's connection is still on its way out) is no failure of a test, and must not be thrown.
  pool.on("error", () => undefined);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  opened.push(db);
  return db;
}

/** Tables and their columns as SQLite has them after all its migrations; the FTS5 tables have no PostgreSQL twin. */
async function sqliteSchema(): Promise<Map<string, string[]>> {
  const sqlite = new BetterSqlite3(":memory:");
  const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: sqlite }) });
  try {
    expect((await migrateToLatest(db)).ok).toBe(true);
    const tables = sqlite
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'messages_fts%' AND name NOT LIKE 'sqlite_%'")
      .all() as Array<{ name: string }>;
    const schema = new Map<string, string[]>();
    for (const { name } of tables) {
      const columns = sqlite.prepare("SELECT name FROM pragma_table_info(?)").all(name) as Array<{ name: string }>;
      schema.set(name, columns.map((column) => column.name).sort());
    }
    return schema;
  } finally {
    await db.destroy();
  }
}

async function postgresSchema(db: Kysely<Database>): Promise<Map<string, string[]>> {
  const rows = await sql<{ table_name: string; column_name: string }>`
    SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public'`.execute(db);
  const schema = new Map<string, string[]>();
  for (const row of rows.rows) schema.set(row.table_name, [...(schema.get(row.table_name) ?? []), row.column_name]);
  for (const columns of schema.values()) columns.sort();
  return schema;
}

async function indexDefinitions(db: Kysely<Database>): Promise<Map<string, string>> {
  const rows = await sql<{ indexname: string; indexdef: string }>`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'`.execute(db);
  return new Map(rows.rows.map((row) => [row.indexname, row.indexdef]));
}

async function appliedNames(db: Kysely<Database>): Promise<string[]> {
  const rows = await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name`.execute(db);
  return rows.rows.map((row) => row.name);
}

describe("PostgreSQL migrations", () => {
  it("give a fresh database SQLite's tables and columns, with its unique, partial and claim indexes and a GIN text index", async () => {
    const { db } = await freshDatabase();
    expect(await migratePostgresToLatest(db)).toEqual({ ok: true, applied: postgresMigrationNames() });

    const expected = await sqliteSchema();
    expected.set("messages", [...(expected.get("messages") ?? []), "text_search"].sort());
    expect(await postgresSchema(db)).toEqual(expected);

    const indexes = await indexDefinitions(db);
    expect(indexes.get("sessions_one_active_per_key")).toBe(
      "CREATE UNIQUE INDEX sessions_one_active_per_key ON public.sessions USING btree (key) WHERE (status = 'active'::text)",
    );
    expect(indexes.get("inbound_platform_message")).toMatch(/^CREATE UNIQUE INDEX .* \(platform, message_id\)$/);
    expect(indexes.get("messages_session_seq")).toMatch(/^CREATE UNIQUE INDEX .* \(session_id, seq\)$/);
    expect(indexes.get("deliveries_chat_heads")).toMatch(/USING btree \(status, platform, chat_id, id\)$/);
    expect(indexes.get("deliveries_by_status")).toMatch(/USING btree \(status, id\)$/);
    expect(indexes.get("run_steps_by_inbound_step")).toMatch(/^CREATE UNIQUE INDEX .* \(inbound_id, step\)$/);
    expect(indexes.get("sessions_by_user")).toMatch(/USING btree \(platform, user_id, created_at\)$/);
    expect(indexes.get("messages_text_search")).toMatch(/USING gin \(text_search\)$/);
    expect(indexes.get("stream_parts_pk")).toMatch(/^CREATE UNIQUE INDEX .* \(inbound_id, part\)$/);
    expect(indexes.get("approvals_pending_by_session_key")).toMatch(/USING btree \(session_key, created_at\) WHERE \(status = 'pending'::text\)$/);
    expect(indexes.get("approvals_by_session_tool")).toMatch(/USING btree \(session_id, tool\)$/);
    expect(indexes.get("cron_jobs_due")).toMatch(/USING btree \(next_run_at, id\)$/);
    expect(indexes.get("cron_jobs_by_chat")).toMatch(/USING btree \(platform, chat_id, created_at, id\)$/);
    expect(indexes.get("subagent_runs_by_parent")).toMatch(/USING btree \(parent_session_id, started_at, id\)$/);
    expect(indexes.get("subagent_runs_by_end")).toMatch(/USING btree \(ended_at\)$/);
    const plainIndexes = ["inbound_by_session_status", "deliveries_by_inbound", "sessions_by_parent", "tool_checkpoints_by_inbound"];
    for (const name of [...plainIndexes, "pairing_requests_by_user", "pairing_requests_by_expiry", "pairing_failures_by_time"]) {
      expect(indexes.has(name), name).toBe(true);
    }
  });

  it("apply nothing when run again", async () => {
    const { db } = await freshDatabase();
    expect((await migratePostgresToLatest(db)).ok).toBe(true);
    expect(await migratePostgresToLatest(db)).toEqual({ ok: true, applied: [] });
    expect(await appliedNames(db)).toEqual(postgresMigrationNames());
  });

  it("run once when two processes migrate one database at the same time", async () => {
    const { url, db } = await freshDatabase();
    const outcomes = await Promise.all([migratePostgresToLatest(db), migratePostgresToLatest(open(url))]);
    expect(outcomes.every((outcome) => outcome.ok)).toBe(true);
    expect(outcomes.flatMap((outcome) => (outcome.ok ? outcome.applied : [])).sort()).toEqual(postgresMigrationNames());
    expect(await appliedNames(db)).toEqual(postgresMigrationNames());
  });

  it("refuse a database a newer version migrated, and change nothing", async () => {
    const { db } = await freshDatabase();
    expect((await migratePostgresToLatest(db)).ok).toBe(true);
    await sql`INSERT INTO kysely_migration (name, timestamp) VALUES ('0002_from_the_future', ${new Date().toISOString()})`.execute(db);
    const outcome = await migratePostgresToLatest(db);
    expect(outcome).toMatchObject({ ok: false, error: { kind: "newer_schema", unknownMigrations: ["0002_from_the_future"] } });
    expect(await appliedNames(db)).toEqual([...postgresMigrationNames(), "0002_from_the_future"].sort());
  });

  it("upgrade a database of the version before 0012 in place: its deliveries have no buttons, and parts and approvals can be stored", async () => {
    const { db } = await freshDatabase();
    const names = postgresMigrationNames();
    const previous = names[names.indexOf("0012_streaming_approvals") - 1] ?? "";
    expect((await new Migrator({ db, provider: postgresMigrationProvider }).migrateTo(previous)).error).toBeUndefined();
    const inbound = await db
      .insertInto("inbound")
      .values({ platform: "telegram", message_id: "m-1", session_key: null, status: "running", payload: "{}", received_at: 1, updated_at: 1, traceparent: null, tracestate: null })
      .returning("id")
      .executeTakeFirstOrThrow();
    await sql`INSERT INTO deliveries (platform, chat_id, text, kind, status, created_at, updated_at) VALUES ('telegram', '42', 'old reply', 'reply', 'pending', 1, 1)`.execute(db);

    expect(await migratePostgresToLatest(db)).toEqual({ ok: true, applied: names.slice(names.indexOf("0012_streaming_approvals")) });
    expect(await db.selectFrom("deliveries").select(["text", "buttons"]).execute()).toEqual([{ text: "old reply", buttons: null }]);
    await db.insertInto("stream_parts").values({ inbound_id: inbound.id, part: 0, message_id: "77", created_at: 2 }).execute();
    await expect(db.insertInto("stream_parts").values({ inbound_id: inbound.id, part: 0, message_id: "78", created_at: 2 }).execute()).rejects.toThrow(/stream_parts_pk/);
    // A part goes with its inbound.
    await db.deleteFrom("inbound").where("id", "=", inbound.id).execute();
    expect(await db.selectFrom("stream_parts").selectAll().execute()).toEqual([]);
  });

  it("upgrade a database of 0012 in place: cron jobs keep times beyond 32 bits and a job without a next run", async () => {
    const { db } = await freshDatabase();
    expect((await new Migrator({ db, provider: postgresMigrationProvider }).migrateTo("0012_streaming_approvals")).error).toBeUndefined();
    const names = postgresMigrationNames();
    expect(await migratePostgresToLatest(db)).toEqual({ ok: true, applied: names.slice(names.indexOf("0013_cron_subagents")) });
    const job = {
      id: "a1b2c3d4", platform: "telegram", chat_id: "42", chat_type: "dm", thread_id: null, creator_id: "42", session_key: "agent:main:telegram:dm:42",
      schedule: "in 5m", kind: "once", prompt: "ping", next_run_at: null, last_run_at: 1_764_650_000_123, last_status: "ran", created_at: 1_764_650_000_000,
    };
    await db.insertInto("cron_jobs").values(job).execute();
    expect(await db.selectFrom("cron_jobs").selectAll().execute()).toEqual([{ ...job, runs: 0 }]);
    await expect(db.insertInto("cron_jobs").values(job).execute()).rejects.toThrow(/cron_jobs_pkey/);
  });

  it("report a failed migration as a value and leave none of it behind", async () => {
    const { db } = await freshDatabase();
    await sql`CREATE TABLE usage (squatter integer)`.execute(db);
    const outcome = await migratePostgresToLatest(db);
    expect(outcome).toMatchObject({ ok: false, error: { kind: "migration_failed", migration: "0001_initial" } });
    if (!outcome.ok) expect(outcome.error.message).toMatch(/"usage" already exists/);
    expect(await sql`SELECT 1 FROM information_schema.tables WHERE table_name = 'sessions'`.execute(db).then((result) => result.rows)).toEqual([]);
    expect(await appliedNames(db)).toEqual([]);
  });
});

describe("the PostgreSQL schema", () => {
  const session = (id: string, userId: string, status = "active"): Database["sessions"] => ({
    id, key: `agent:main:telegram:dm:${userId}`, platform: "telegram", chat_id: userId, chat_type: "dm", thread_id: null,
    user_id: userId, title: null, status, parent_id: null, model: null, created_at: 1_764_650_000_123, updated_at: 1_764_650_000_456,
  });
  const message = (sessionId: string, seq: number, text: string) => ({
    session_id: sessionId, seq, role: "user", content: JSON.stringify({ role: "user", content: text }), text, tokens: 7, created_at: 1_764_650_001_000 + seq,
  });

  it("round-trips rows with the JS types the SQLite repositories read: times, ids and counts as numbers", async () => {
    const { db } = await freshDatabase();
    expect((await migratePostgresToLatest(db)).ok).toBe(true);
    await db.insertInto("sessions").values(session("s-1", "42")).execute();
    const inserted = await db.insertInto("messages").values([message("s-1", 0, "hello"), message("s-1", 1, "world")]).returning("id").execute();
    expect(inserted.map((row) => typeof row.id)).toEqual(["number", "number"]);

    expect(await db.selectFrom("sessions").selectAll().executeTakeFirstOrThrow()).toEqual(session("s-1", "42"));
    const rows = await db.selectFrom("messages").select(["id", "session_id", "seq", "role", "content", "text", "tokens", "created_at"]).orderBy("seq").execute();
    expect(rows).toEqual([
      { id: inserted[0]?.id, ...message("s-1", 0, "hello") },
      { id: inserted[1]?.id, ...message("s-1", 1, "world") },
    ]);

    const usage = { session_id: "s-1", runs: 1, input_tokens: 5_000_000_000, output_tokens: 2, cache_read_tokens: 0, cache_write_tokens: 0 };
    await db.insertInto("usage").values({ ...usage, cost_usd: 0.0125, updated_at: 1_764_650_002_000 }).execute();
    expect(await db.selectFrom("usage").selectAll().executeTakeFirstOrThrow()).toEqual({ ...usage, cost_usd: 0.0125, updated_at: 1_764_650_002_000 });
    expect(await db.selectFrom("messages").select((eb) => eb.fn.countAll().as("count")).executeTakeFirstOrThrow()).toEqual({ count: 2 });
  });

  it("refuses an int8 that a JS number cannot hold exactly instead of rounding it", async () => {
    const { db } = await freshDatabase();
    expect((await migratePostgresToLatest(db)).ok).toBe(true);
    await expect(sql`SELECT 9007199254740993::bigint AS big`.execute(db)).rejects.toThrow(/does not fit a JS number/);
    expect((await sql<{ ok: number }>`SELECT 9007199254740991::bigint AS ok`.execute(db)).rows).toEqual([{ ok: Number.MAX_SAFE_INTEGER }]);
  });

  it("keeps one active session per key, and one inbound row per platform message", async () => {
    const { db } = await freshDatabase();
    expect((await migratePostgresToLatest(db)).ok).toBe(true);
    await db.insertInto("sessions").values([session("old", "42", "ended"), session("s-1", "42")]).execute();
    await expect(db.insertInto("sessions").values(session("s-2", "42")).execute()).rejects.toThrow(/sessions_one_active_per_key/);
    const inbound = { platform: "telegram", message_id: "m-1", session_key: null, status: "queued", payload: "{}", received_at: 1, updated_at: 1 };
    await db.insertInto("inbound").values(inbound).execute();
    const again = await db.insertInto("inbound").values(inbound).onConflict((oc) => oc.columns(["platform", "message_id"]).doNothing()).returning("id").execute();
    expect(again).toEqual([]);
  });

  it("finds a word in one owner's messages only, and forgets a session's messages with it", async () => {
    const { db } = await freshDatabase();
    expect((await migratePostgresToLatest(db)).ok).toBe(true);
    await db.insertInto("sessions").values([session("alice", "1"), session("bob", "2")]).execute();
    await db
      .insertInto("messages")
      .values([message("alice", 0, "The Lighthouse keeper waved"), message("bob", 0, "a lighthouse on the coast"), message("alice", 1, "nothing here")])
      .execute();
    const search = (userId: string, query: string) =>
      db
        .selectFrom("messages")
        .innerJoin("sessions", "sessions.id", "messages.session_id")
        .select(["messages.session_id as sessionId", "messages.text as text"])
        .where(sql<boolean>`messages.text_search @@ websearch_to_tsquery('simple', ${query})`)
        .where("sessions.platform", "=", "telegram")
        .where("sessions.user_id", "=", userId)
        .execute();

    expect(await search("1", "LIGHTHOUSE keeper")).toEqual([{ sessionId: "alice", text: "The Lighthouse keeper waved" }]);
    expect(await search("2", "lighthouse")).toEqual([{ sessionId: "bob", text: "a lighthouse on the coast" }]);
    expect(await search("2", "keeper")).toEqual([]);
    // 'simple' keeps stop words, as unicode61 does: "the" is a term that matches.
    expect(await search("1", "the")).toHaveLength(1);

    await db.deleteFrom("sessions").where("id", "=", "alice").execute();
    expect(await search("1", "lighthouse")).toEqual([]);
  });
});
