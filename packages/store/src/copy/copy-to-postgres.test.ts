import { mkdtemp, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { Kysely, Migrator, SqliteDialect } from "kysely";
import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { closedPort } from "../../../../test/support/free-port.js";
import { startPostgres, type TestPostgres } from "../../../../test/support/postgres-server.js";
import { migrationNames, migrationProvider } from "../migrations/index.js";
import { openStore } from "../open-store.js";
import { int8AsNumber } from "../pg/int8-types.js";
import type { Store } from "../store.js";
import { COPIED_TABLES } from "./copied-tables.js";
import { copySqliteToPostgres, type CopyResult } from "./copy-to-postgres.js";
import { FILLED_AT, fillSqliteInstall, readFilledInstall } from "./filled-install.fixture.js";

let server: TestPostgres;
let databaseCount = 0;
let dir: string;
const stores: Store[] = [];

beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await server?.stop();
});
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "hermes-copy-"));
});
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  await rm(dir, { recursive: true, force: true });
});

async function emptyDatabase(): Promise<string> {
  databaseCount += 1;
  return server.createDatabase(`copy_${databaseCount}`);
}

async function open(options: { file: string; databaseUrl?: string }): Promise<Store> {
  const store = await openStore({ ...options, now: () => FILLED_AT + 1000 });
  stores.push(store);
  return store;
}

async function query<R>(url: string, text: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: url, types: int8AsNumber() });
  await client.connect();
  try {
    return (await client.query(text)).rows as R[];
  } finally {
    await client.end();
  }
}

async function rowCounts(url: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const { name } of COPIED_TABLES) counts[name] = (await query<{ n: number }>(url, `SELECT count(*) AS n FROM ${name}`))[0]?.n ?? -1;
  return counts;
}

function expectCopied(result: CopyResult): Extract<CopyResult, { ok: true }> {
  if (!result.ok) throw new Error(`copy failed: ${result.error.kind}: ${result.error.message}`);
  return result;
}

describe("copySqliteToPostgres", () => {
  it("moves every table, so the PostgreSQL store answers as the SQLite one did, and verifies the counts", async () => {
    const file = path.join(dir, "state.db");
    const filled = await fillSqliteInstall(file);
    const databaseUrl = await emptyDatabase();

    const copied = expectCopied(await copySqliteToPostgres({ file, databaseUrl, batchSize: 2 }));

    expect(copied.tables.map((count) => count.table)).toEqual(COPIED_TABLES.map((table) => table.name));
    for (const count of copied.tables) {
      expect(count.sqliteRows, count.table).toBeGreaterThan(0);
      expect(count.postgresRows, count.table).toBe(count.sqliteRows);
    }
    expect(await rowCounts(databaseUrl)).toEqual(Object.fromEntries(copied.tables.map((count) => [count.table, count.sqliteRows])));
    // The session title and the old search text held NUL characters.
    expect(copied.tables.find((count) => count.table === "sessions")?.valuesWithNulRemoved).toBe(1);
    expect(copied.tables.find((count) => count.table === "messages")?.valuesWithNulRemoved).toBe(1);

    const before = (await readFilledInstall(await open({ file }), filled)) as { sessions: Array<{ title?: string } | undefined> };
    const after = (await readFilledInstall(await open({ file: path.join(dir, "unused.db"), databaseUrl }), filled)) as typeof before;
    expect(before.sessions[2]?.title).toBe("Recipes\u0000draft");
    before.sessions[2] = { ...before.sessions[2], title: "Recipesdraft" };
    expect(after).toEqual(before);
    expect((after.sessions[1] as { parentId?: string }).parentId).toBe(filled.parentSessionId);
  });

  it("keeps the search text (without NUL) for PostgreSQL's index, and new rows get ids and versions after the copied ones", async () => {
    const file = path.join(dir, "state.db");
    const filled = await fillSqliteInstall(file);
    const databaseUrl = await emptyDatabase();
    expectCopied(await copySqliteToPostgres({ file, databaseUrl }));
    const store = await open({ file: path.join(dir, "unused.db"), databaseUrl });

    // Search reads messages.text (and, on PostgreSQL, the tsvector generated from it); the NUL is taken out as the
    // repositories take it out of new messages' search text.
    const sqlite = new BetterSqlite3(file, { readonly: true });
    const sqliteText = sqlite.prepare("SELECT id, session_id, text FROM messages ORDER BY id").all() as Array<{ id: number; session_id: string; text: string }>;
    sqlite.close();
    const postgresText = await query<{ id: number; session_id: string; text: string }>(databaseUrl, "SELECT id, session_id, text FROM messages ORDER BY id");
    expect(postgresText).toEqual(sqliteText.map((row) => ({ ...row, text: row.text.replaceAll("\u0000", "") })));
    const matching = async (terms: string): Promise<string[]> =>
      (await query<{ session_id: string }>(databaseUrl, `SELECT DISTINCT session_id FROM messages WHERE text_search @@ to_tsquery('simple', '${terms}')`)).map((row) => row.session_id);
    expect(await matching("wine & cellars")).toEqual([filled.childSessionId]);
    expect(await matching("tomatoesfence & soup")).toEqual([filled.groupSessionId]);

    const highest = async (table: string): Promise<number> => (await query<{ id: number }>(databaseUrl, `SELECT max(id) AS id FROM ${table}`))[0]?.id ?? 0;
    const copiedInbound = await highest("inbound");
    const { record } = await store.inbound.recordIfNew({ platform: "telegram", messageId: "2002", payload: "{}", status: "received" });
    expect(record.id).toBeGreaterThan(copiedInbound);
    const copiedDelivery = await highest("deliveries");
    expect((await store.deliveries.enqueue({ platform: "telegram", chatId: "42", text: "hi", kind: "notice" })).id).toBeGreaterThan(copiedDelivery);
    const copiedMessage = await highest("messages");
    await store.messages.append(filled.childSessionId, [{ role: "user", content: "And Sintra?", timestamp: FILLED_AT }]);
    expect(await highest("messages")).toBeGreaterThan(copiedMessage);
    const request = await store.pairing.createRequest({ platform: "slack", userId: "U1", chatId: "D1", codeHash: "h", salt: "s", createdAt: FILLED_AT, expiresAt: FILLED_AT + 1 });
    expect(request.id).toBeGreaterThan(1);
    await store.pairing.recordFailure("slack", FILLED_AT);
    const copiedVersion = (await query<{ version: number }>(databaseUrl, `SELECT max(version) AS version FROM shared_files`))[0]?.version ?? 0;
    const put = await store.sharedFiles.put("skills/bread/SKILL.md", Buffer.from("# Bread\n"));
    expect(put).toMatchObject({ ok: true });
    if (put.ok) expect(put.version).toBeGreaterThan(copiedVersion);
    expect(await store.toolCheckpoints.recordStep({ inboundId: filled.runningInboundId, step: 2, message: { role: "assistant" } })).toEqual({ saved: true });
  });

  it("gives new rows ids SQLite never handed out, past those of deleted rows too", async () => {
    const file = path.join(dir, "state.db");
    await fillSqliteInstall(file);
    // The newest messages answered and pruned by retention: the highest id SQLite gave is no longer in the table.
    const sqlite = new BetterSqlite3(file);
    sqlite.pragma("foreign_keys = ON");
    const { id: pruned } = sqlite.prepare("INSERT INTO inbound (platform, message_id, status, payload, received_at, updated_at) VALUES ('telegram', 'pruned', 'answered', '{}', 1, 1) RETURNING id").get() as { id: number };
    sqlite.prepare("DELETE FROM inbound WHERE id = ?").run(pruned);
    sqlite.close();
    const databaseUrl = await emptyDatabase();
    expectCopied(await copySqliteToPostgres({ file, databaseUrl }));
    const store = await open({ file: path.join(dir, "unused.db"), databaseUrl });

    const { record } = await store.inbound.recordIfNew({ platform: "telegram", messageId: "after-the-move", payload: "{}", status: "received" });
    expect(record.id).toBeGreaterThan(pruned);
  });

  it("refuses a target that already holds rows, and writes nothing", async () => {
    const file = path.join(dir, "state.db");
    await fillSqliteInstall(file);
    const databaseUrl = await emptyDatabase();
    expectCopied(await copySqliteToPostgres({ file, databaseUrl }));
    const counts = await rowCounts(databaseUrl);

    const again = await copySqliteToPostgres({ file, databaseUrl });
    const filledTables = Object.entries(counts).flatMap(([table, count]) => (count > 0 ? [table] : []));
    expect(again).toMatchObject({ ok: false, error: { kind: "target_not_empty", tables: filledTables } });
    expect(await rowCounts(databaseUrl)).toEqual(counts);

    const oneRow = await emptyDatabase();
    await (await open({ file: path.join(dir, "other.db"), databaseUrl: oneRow })).chatSettings.set("telegram", "5", { mentionMode: "mention" });
    const refused = await copySqliteToPostgres({ file, databaseUrl: oneRow });
    expect(refused).toMatchObject({ ok: false, error: { kind: "target_not_empty", tables: ["chat_settings"] } });
    if (!refused.ok) expect(refused.error.message).toContain("Nothing was written");
    expect((await rowCounts(oneRow)).sessions).toBe(0);
  });

  it("leaves the target empty when a row fails half-way, and copies once the row is fixed", async () => {
    const file = path.join(dir, "state.db");
    await fillSqliteInstall(file);
    // SQLite keeps any value in any column; PostgreSQL's integer refuses this one, after the tables before it are in.
    const sqlite = new BetterSqlite3(file);
    sqlite.prepare(`INSERT INTO user_daily_usage (platform, user_id, day, cost_usd, runs, tokens, updated_at) VALUES ('slack', 'U9', '2026-01-15', 0, 'many', 0, 0)`).run();
    sqlite.close();
    const databaseUrl = await emptyDatabase();
    const copiedTables: string[] = [];

    const failed = await copySqliteToPostgres({ file, databaseUrl, onTableCopied: (table) => copiedTables.push(table) });

    expect(failed).toMatchObject({ ok: false, error: { kind: "copy_failed", table: "user_daily_usage" } });
    if (!failed.ok) expect(failed.error.message).toMatch(/copying user_daily_usage failed: .*integer.*; nothing was committed/);
    expect(copiedTables).toContain("messages");
    expect(Object.values(await rowCounts(databaseUrl)).every((count) => count === 0)).toBe(true);

    const fix = new BetterSqlite3(file);
    fix.prepare(`UPDATE user_daily_usage SET runs = 3 WHERE user_id = 'U9'`).run();
    fix.close();
    expectCopied(await copySqliteToPostgres({ file, databaseUrl }));
    expect((await rowCounts(databaseUrl)).user_daily_usage).toBe(2);
  });

  it("gives up, writing nothing, while another process writes to the target, and copies once it is done", async () => {
    const file = path.join(dir, "state.db");
    await fillSqliteInstall(file);
    const databaseUrl = await emptyDatabase();
    // A gateway already on the target: its tables exist, and it is in the middle of a write.
    await (await open({ file: path.join(dir, "unused.db"), databaseUrl })).close();
    const writer = new pg.Client({ connectionString: databaseUrl });
    await writer.connect();
    try {
      await writer.query("BEGIN");
      await writer.query("INSERT INTO chat_settings (platform, chat_id, mention_mode, updated_at) VALUES ('slack', 'C9', 'all', 1)");
      const blocked = await copySqliteToPostgres({ file, databaseUrl, lockTimeoutMs: 200 });
      expect(blocked).toMatchObject({ ok: false, error: { kind: "copy_failed", message: expect.stringContaining("another process is writing to the target database") } });
      await writer.query("ROLLBACK");
    } finally {
      await writer.end();
    }
    expect(Object.values(await rowCounts(databaseUrl)).every((count) => count === 0)).toBe(true);
    expectCopied(await copySqliteToPostgres({ file, databaseUrl }));
  });

  it("migrates an older SQLite file before copying, and never creates a missing one", async () => {
    const file = path.join(dir, "state.db");
    const sqlite = new BetterSqlite3(file);
    const older = new Kysely<unknown>({ dialect: new SqliteDialect({ database: sqlite }) });
    const names = migrationNames();
    const last = names[names.length - 2] ?? "";
    expect((await new Migrator({ db: older, provider: migrationProvider }).migrateTo(last)).error).toBeUndefined();
    await older.destroy();

    const copied = expectCopied(await copySqliteToPostgres({ file, databaseUrl: await emptyDatabase() }));
    expect(copied.tables.every((count) => count.sqliteRows === 0 && count.postgresRows === 0)).toBe(true);
    const check = new BetterSqlite3(file, { readonly: true });
    expect((check.prepare("SELECT name FROM kysely_migration ORDER BY name").all() as Array<{ name: string }>).map((row) => row.name)).toEqual(names);
    check.close();

    const missing = path.join(dir, "nothing-here", "state.db");
    expect(await copySqliteToPostgres({ file: missing, databaseUrl: await emptyDatabase() })).toMatchObject({ ok: false, error: { kind: "source_missing" } });
    await expect(stat(path.dirname(missing))).rejects.toThrow();
  });

  it("reports a target it cannot reach without its password", async () => {
    const file = path.join(dir, "state.db");
    await fillSqliteInstall(file);
    const result = await copySqliteToPostgres({ file, databaseUrl: `postgres://hermes:s3cret-pw@127.0.0.1:${await closedPort()}/nothing` });
    expect(result).toMatchObject({ ok: false, error: { kind: "target_unusable" } });
    if (!result.ok) {
      expect(result.error.message).toContain("postgres://hermes:***@127.0.0.1");
      expect(result.error.message).not.toContain("s3cret-pw");
    }
  });

  it("gives PostgreSQL no table or sequence of ours that the copy leaves out", async () => {
    const file = path.join(dir, "state.db");
    await fillSqliteInstall(file);
    const databaseUrl = await emptyDatabase();
    expectCopied(await copySqliteToPostgres({ file, databaseUrl }));
    const tables = await query<{ table_name: string }>(databaseUrl, `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`);
    const ours = tables.map((row) => row.table_name).filter((name) => !name.startsWith("kysely_migration"));
    expect(ours.sort()).toEqual(COPIED_TABLES.map((table) => table.name).sort());
    // A sequence outside an identity column must be named in its table's `sequences`, or the copy leaves it behind.
    const sequences = await query<{ name: string }>(
      databaseUrl,
      `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE c.relkind = 'S' AND n.nspname = 'public'
         AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype = 'i')
       ORDER BY c.relname`,
    );
    const named = COPIED_TABLES.flatMap((table) => Object.values(table.sequences ?? {}));
    expect(sequences.map((row) => row.name).filter((name) => !name.startsWith("kysely_migration"))).toEqual(named.sort());
  });
});
