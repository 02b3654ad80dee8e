import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { Kysely, Migrator, SqliteDialect } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { migrationNames, migrationProvider } from "./migrations/index.js";
import { storeFixtures, userMessage } from "./test-fixtures.js";

const fixtures = storeFixtures();
afterEach(() => fixtures.cleanup());

/** A file as the first released version left it: only the first migration applied, with data in it. */
async function createVersionOneDatabase(file: string): Promise<void> {
  const sqlite = new BetterSqlite3(file);
  sqlite.pragma("journal_mode = WAL");
  const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: sqlite }) });
  const migrator = new Migrator({ db, provider: migrationProvider });
  const result = await migrator.migrateTo("0001_initial");
  expect(result.error).toBeUndefined();

  sqlite
    .prepare(
      `INSERT INTO sessions (id, key, platform, chat_id, chat_type, user_id, status, created_at, updated_at)
       VALUES ('old-session', 'agent:main:telegram:dm:42', 'telegram', '42', 'dm', '42', 'active', 1000, 1000)`,
    )
    .run();
  sqlite
    .prepare(
      `INSERT INTO messages (session_id, seq, role, content, text, tokens, created_at)
       VALUES ('old-session', 0, 'user', ?, 'remember the lighthouse keeper', 8, 1000)`,
    )
    .run(JSON.stringify(userMessage("remember the lighthouse keeper")));
  sqlite
    .prepare(
      `INSERT INTO inbound (platform, message_id, session_key, status, payload, received_at, updated_at)
       VALUES ('telegram', 'm-1', 'agent:main:telegram:dm:42', 'queued', '{}', 1000, 1000)`,
    )
    .run();
  await db.destroy();
}

/** A file as version 0007 left it: the global full-text index, filled by its triggers, for three users and a group. */
async function createVersionSevenDatabase(file: string): Promise<void> {
  const sqlite = new BetterSqlite3(file);
  sqlite.pragma("journal_mode = WAL");
  const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: sqlite }) });
  const result = await new Migrator({ db, provider: migrationProvider }).migrateTo("0007_user_daily_usage");
  expect(result.error).toBeUndefined();
  const insertSession = sqlite.prepare(
    `INSERT INTO sessions (id, key, platform, chat_id, chat_type, user_id, status, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, 'ended', 1000, 1000)`,
  );
  const insertMessage = sqlite.prepare(
    `INSERT INTO messages (session_id, seq, role, content, text, tokens, created_at) VALUES (?, ?, 'user', ?, ?, 4, 1000)`,
  );
  const sessions = [
    ["alice-tg", "telegram", "alice", "dm"],
    ["alice-dc", "discord", "alice", "dm"],
    ["bob-tg", "telegram", "bob", "dm"],
    ["group-tg", "telegram", null, "group"],
  ] as const;
  for (const [id, platform, userId, chatType] of sessions) {
    insertSession.run(id, `agent:main:${platform}:${chatType}:${id}`, platform, id, chatType, userId);
    for (const [seq, text] of [`lighthouse note of ${id}`, `second note of ${id}`].entries()) {
      insertMessage.run(id, seq, JSON.stringify(userMessage(text)), text);
    }
  }
  // A deleted message and an edited one, so the index being rebuilt has history.
  sqlite.prepare("DELETE FROM messages WHERE session_id = 'bob-tg' AND seq = 1").run();
  sqlite.prepare("UPDATE messages SET text = 'lighthouse keeper of alice-tg' WHERE session_id = 'alice-tg' AND seq = 1").run();
  await db.destroy();
}

describe("migrations", () => {
  it("has a migration 1 that leaves later ones pending", () => {
    expect(migrationNames().length).toBeGreaterThan(1);
  });

  it("upgrades a version-1 database in place, keeping its rows", async () => {
    const file = path.join(await fixtures.folder(), "state.db");
    await createVersionOneDatabase(file);

    const store = await fixtures.open(file);

    const session = await store.sessions.get("old-session");
    expect(session).toMatchObject({ key: "agent:main:telegram:dm:42", status: "active", userId: "42" });
    expect(await store.messages.history("old-session")).toEqual([userMessage("remember the lighthouse keeper")]);
    const oldInbound = await store.inbound.claimNext("agent:main:telegram:dm:42");
    expect(oldInbound).toMatchObject({ messageId: "m-1", status: "running" });
    // Messages received before trace contexts were stored have none.
    expect(oldInbound).not.toHaveProperty("traceContext");
    const hits = await store.search({ text: "lighthouse", platform: "telegram", userId: "42" });
    expect(hits.map((hit) => hit.sessionId)).toEqual(["old-session"]);

    // Tables of the later migrations exist and work.
    await store.pairing.approve({ platform: "telegram", userId: "42" }, 2000);
    expect(await store.pairing.isApproved("telegram", "42")).toBe(true);
    await store.chatSettings.set("telegram", "-100", { mentionMode: "all" });
    expect(await store.chatSettings.get("telegram", "-100")).toEqual({ mentionMode: "all" });
    const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const traced = await store.inbound.recordIfNew({ platform: "telegram", messageId: "m-2", payload: "{}", status: "received", traceContext: { traceparent } });
    expect((await store.inbound.get(traced.record.id))?.traceContext).toEqual({ traceparent });
    const saved = { step: 1, position: 0, toolCallId: "c1", toolName: "terminal", argumentsHash: "h", status: "ok", result: { content: "done" }, durationMs: 1 };
    expect(await store.toolCheckpoints.record({ inboundId: oldInbound?.id ?? -1, ...saved })).toEqual({ saved: true });
    expect(await store.toolCheckpoints.forRun(oldInbound?.id ?? -1)).toEqual([saved]);

    const raw = new BetterSqlite3(file, { readonly: true });
    try {
      expect(raw.prepare("SELECT name FROM kysely_migration ORDER BY name").pluck().all()).toEqual(migrationNames());
    } finally {
      raw.close();
    }
  });

  it("rebuilds the full-text index of a version-7 database with owners, keeping search to one user's sessions", async () => {
    const file = path.join(await fixtures.folder(), "state.db");
    await createVersionSevenDatabase(file);

    const store = await fixtures.open(file);

    const search = async (platform: string, userId: string, text: string): Promise<Array<[string, number]>> =>
      (await store.search({ platform, userId, text })).map((hit) => [hit.sessionId, hit.seq]);
    expect(await search("telegram", "alice", "lighthouse")).toEqual(expect.arrayContaining([["alice-tg", 0], ["alice-tg", 1]]));
    expect(await search("telegram", "alice", "lighthouse")).toHaveLength(2);
    expect(await search("telegram", "alice", "keeper")).toEqual([["alice-tg", 1]]);
    expect(await search("discord", "alice", "lighthouse")).toEqual([["alice-dc", 0]]);
    expect(await search("telegram", "bob", "note")).toEqual([["bob-tg", 0]]);
    expect(await search("telegram", "bob", "second")).toEqual([]);
    // Messages written after the upgrade are indexed with their owner too.
    await store.messages.append("bob-tg", [userMessage("a lighthouse for bob")]);
    expect(await search("telegram", "bob", "lighthouse")).toEqual(expect.arrayContaining([["bob-tg", 0], ["bob-tg", 1]]));
    expect(await search("telegram", "alice", "bob")).toEqual([]);

    const raw = new BetterSqlite3(file);
    try {
      expect(() => raw.prepare("INSERT INTO messages_fts(messages_fts) VALUES ('integrity-check')").run()).not.toThrow();
      expect(raw.prepare("SELECT count(*) FROM messages_fts").pluck().get()).toBe(8);
    } finally {
      raw.close();
    }
  });

  it("upgrades a version-10 database: its deliveries keep going out without buttons, and parts and approvals are stored", async () => {
    const file = path.join(await fixtures.folder(), "state.db");
    const sqlite = new BetterSqlite3(file);
    sqlite.pragma("journal_mode = WAL");
    const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: sqlite }) });
    expect((await new Migrator({ db, provider: migrationProvider }).migrateTo("0010_shared_files")).error).toBeUndefined();
    sqlite
      .prepare(`INSERT INTO deliveries (platform, chat_id, text, kind, status, created_at, updated_at) VALUES ('telegram', '42', 'old reply', 'reply', 'pending', 1000, 1000)`)
      .run();
    await db.destroy();

    const store = await fixtures.open(file);
    const [old] = await store.deliveries.pending();
    expect(old).toMatchObject({ text: "old reply", status: "pending" });
    expect(old).not.toHaveProperty("buttons");
    const { record } = await store.inbound.recordIfNew({ platform: "telegram", messageId: "m-1", payload: "{}", status: "running" });
    await store.streamParts.record(record.id, 0, "501");
    expect(await store.streamParts.list(record.id)).toEqual(["501"]);
    await store.approvals.create({
      id: "upgrade1",
      inboundId: record.id,
      sessionKey: "agent:main:telegram:dm:42",
      sessionId: "s-1",
      platform: "telegram",
      chatId: "42",
      requesterId: "42",
      tool: "terminal",
      summary: "ls",
      createdAt: fixtures.now(),
      expiresAt: fixtures.now() + 1,
    });
    expect(await store.approvals.latestPending("agent:main:telegram:dm:42", fixtures.now())).toMatchObject({ id: "upgrade1" });
  });

  it("upgrades a version-12 database: its jobs table starts empty, and cron jobs and sub-agent runs are stored", async () => {
    const file = path.join(await fixtures.folder(), "state.db");
    const sqlite = new BetterSqlite3(file);
    sqlite.pragma("journal_mode = WAL");
    const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: sqlite }) });
    expect((await new Migrator({ db, provider: migrationProvider }).migrateTo("0012_streaming_approvals")).error).toBeUndefined();
    await db.destroy();

    const store = await fixtures.open(file);
    expect(await store.cronJobs.listAll()).toEqual([]);
    const job = {
      id: "upgrade1",
      platform: "telegram",
      chatId: "42",
      chatType: "dm",
      creatorId: "42",
      sessionKey: "agent:main:telegram:dm:42",
      schedule: "every 1h",
      kind: "every",
      prompt: "ping",
      nextRunAt: fixtures.now(),
      createdAt: fixtures.now(),
    } as const;
    await store.cronJobs.create(job);
    expect(await store.cronJobs.due(fixtures.now(), 5)).toEqual([{ ...job, runs: 0 }]);
    const run = {
      id: "sub-1",
      parentSessionId: "s-1",
      parentToolCallId: "call-1",
      goal: "look",
      status: "done",
      summary: "found",
      steps: 1,
      inputTokens: 1,
      outputTokens: 1,
      costUsd: 0,
      startedAt: 1,
      endedAt: 2,
    } as const;
    await store.subagentRuns.record(run);
    expect(await store.subagentRuns.listForSession("s-1")).toEqual([run]);
  });
});
