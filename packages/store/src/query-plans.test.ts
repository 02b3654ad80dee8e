import BetterSqlite3 from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { assistantMessage, dmSession, storeFixtures, userMessage } from "./test-fixtures.js";

const fixtures = storeFixtures();
const preparedSql = new Set<string>();
const prototype = BetterSqlite3.prototype as unknown as { prepare: (source: string) => BetterSqlite3.Statement };
const prepare = prototype.prepare;
afterEach(async () => {
  prototype.prepare = prepare;
  preparedSql.clear();
  await fixtures.cleanup();
});

/** Every statement a store prepares from here on (SqlRunner prepares each distinct SQL text once per connection). */
function recordPreparedSql(): void {
  prototype.prepare = function (this: BetterSqlite3.Database, source: string) {
    preparedSql.add(source);
    return prepare.call(this, source);
  };
}

describe("the statements of an answered message", () => {
  it("find their rows through an index (no table scan grows with the database) and bind no LIMIT", async () => {
    const { store, file } = await fixtures.openNew();
    recordPreparedSql();
    const created = await store.sessions.getOrCreateActive(dmSession("u1"));
    const { record } = await store.inbound.recordIfNew({ platform: "telegram", messageId: "m1", payload: "{}", sessionKey: created.session.key, status: "received" });
    await store.pairing.isApproved("telegram", "u1");
    await store.chatSettings.get("telegram", "group-1");
    await store.inbound.unanswered(created.session.key);
    const { session } = await store.sessions.getOrCreateActive(dmSession("u1"));
    await store.inbound.setStatus(record.id, "queued");
    await store.inbound.get(record.id);
    await store.inbound.claimNext(session.key);
    await store.messages.history(session.id);
    await store.toolCheckpoints.forRun(record.id);
    await store.toolCheckpoints.stepsForRun(record.id);
    await store.toolCheckpoints.recordStep({ inboundId: record.id, step: 1, message: assistantMessage("hello") });
    const usage = { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 };
    const done = await store.completeRun({
      inboundId: record.id,
      sessionId: session.id,
      messages: [userMessage("hi"), assistantMessage("hello")],
      usage,
      usageOwner: { platform: "telegram", userId: "u1" },
      deliveries: [{ platform: "telegram", chatId: "u1", text: "hello", kind: "reply", sessionKey: session.key }],
    });
    expect(done.ok).toBe(true);
    await store.inbound.claimNext(session.key);
    const [delivery] = await store.deliveries.claim({ owner: "o1", platforms: ["telegram"], limit: 4, leaseMs: 1_000 });
    expect(await store.deliveries.markSent(delivery?.id ?? 0, "o1")).toBe(true);
    prototype.prepare = prepare;

    const sqlite = new BetterSqlite3(file, { readonly: true });
    try {
      const scans = [...preparedSql].flatMap((sql) => {
        const placeholders = sql.match(/\?/g)?.length ?? 0;
        const plan = sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...Array<null>(placeholders).fill(null)) as { detail: string }[];
        // A multi-row INSERT reads its own VALUES list ("SCAN 2-ROW VALUES CLAUSE"): no table.
        return plan.filter((step) => step.detail.startsWith("SCAN ") && !/^SCAN \d+-ROW VALUES CLAUSE$/.test(step.detail)).map((step) => `${step.detail} in: ${sql}`);
      });
      expect(preparedSql.size).toBeGreaterThan(15);
      expect(scans).toEqual([]);
      // SQLite runs ORDER BY ... LIMIT several times slower when the limit is a bound parameter.
      expect([...preparedSql].filter((sql) => /\blimit \?/i.test(sql))).toEqual([]);
    } finally {
      sqlite.close();
    }
  });

  it("of a streamed reply and an approval find their rows through an index and bind no LIMIT", async () => {
    const { store, file } = await fixtures.openNew();
    const { session } = await store.sessions.getOrCreateActive(dmSession("u1"));
    const { record } = await store.inbound.recordIfNew({ platform: "telegram", messageId: "m1", payload: "{}", sessionKey: session.key, status: "running" });
    recordPreparedSql();
    await store.streamParts.record(record.id, 0, "501");
    await store.streamParts.record(record.id, 0, "502");
    await store.streamParts.list(record.id);
    await store.streamParts.clear(record.id);
    await store.approvals.grantedForSession(session.id, "terminal", "u1");
    await store.approvals.create({
      id: "plan0001",
      inboundId: record.id,
      sessionKey: session.key,
      sessionId: session.id,
      platform: "telegram",
      chatId: "u1",
      requesterId: "u1",
      tool: "terminal",
      summary: "ls",
      createdAt: fixtures.now(),
      expiresAt: fixtures.now() + 60_000,
    });
    await store.approvals.latestPending(session.key, fixtures.now());
    await store.approvals.get("plan0001");
    await store.approvals.decide("plan0001", { status: "approved", scope: "session", decidedBy: "u1", decidedAt: fixtures.now() });
    await store.deliveries.enqueue({ platform: "telegram", chatId: "u1", text: "Run?", kind: "notice", buttons: [{ label: "Approve", value: "/approve plan0001" }] });
    prototype.prepare = prepare;

    const sqlite = new BetterSqlite3(file, { readonly: true });
    try {
      const plans = [...preparedSql].map((sql) => {
        const placeholders = sql.match(/\?/g)?.length ?? 0;
        return { sql, plan: sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...Array<null>(placeholders).fill(null)) as { detail: string }[] };
      });
      const scans = plans.flatMap(({ sql, plan }) => plan.filter((step) => step.detail.startsWith("SCAN ")).map((step) => `${step.detail} in: ${sql}`));
      expect(preparedSql.size).toBeGreaterThan(8);
      expect(scans).toEqual([]);
      const latestPending = plans.find(({ sql }) => /from "approvals".*"expires_at" >/i.test(sql));
      expect(latestPending?.plan.map((step) => step.detail).join("; ")).toContain("approvals_pending_by_session_key");
      expect([...preparedSql].filter((sql) => /\blimit \?/i.test(sql))).toEqual([]);
    } finally {
      sqlite.close();
    }
  });

  it("of scheduled tasks and sub-agent runs find their rows through an index and bind no LIMIT", async () => {
    const { store, file } = await fixtures.openNew();
    recordPreparedSql();
    const now = fixtures.now();
    const job = { platform: "telegram", chatId: "u1", chatType: "dm", creatorId: "u1", sessionKey: "agent:main:telegram:dm:u1", schedule: "every 1h", kind: "every", prompt: "ping", nextRunAt: now, createdAt: now } as const;
    await store.cronJobs.create({ ...job, id: "plan0001" });
    await store.cronJobs.get("plan0001");
    await store.cronJobs.listForChat("telegram", "u1");
    await store.cronJobs.due(now, 10);
    await store.cronJobs.advance("plan0001", now, { nextRunAt: now + 3_600_000, lastRunAt: now, lastStatus: "ran" });
    await store.cronJobs.advance("plan0001", null, { nextRunAt: now, lastRunAt: now, lastStatus: "skipped" });
    await store.cronJobs.remove("plan0001");
    // Before a slot: whether the task's replies still reach its chat.
    await store.deliveries.lastFinalOutcomes("agent:main:cron:plan0001", 3);
    const run = { parentSessionId: "s1", parentToolCallId: "c1", goal: "g", status: "done", summary: "s", steps: 1, inputTokens: 1, outputTokens: 1, costUsd: 0, startedAt: now, endedAt: now } as const;
    await store.subagentRuns.record({ ...run, id: "sub-1" });
    await store.subagentRuns.listForSession("s1");
    // Retention's delete of old sub-agent runs.
    await store.retention.prune({ now, days: 30 });
    prototype.prepare = prepare;

    const sqlite = new BetterSqlite3(file, { readonly: true });
    try {
      const plans = [...preparedSql]
        .filter((sql) => /"cron_jobs"|"subagent_runs"|from "deliveries" where "session_key"/.test(sql))
        .map((sql) => {
          const placeholders = sql.match(/\?/g)?.length ?? 0;
          return { sql, plan: sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...Array<null>(placeholders).fill(null)) as { detail: string }[] };
        });
      const scans = plans.flatMap(({ sql, plan }) => plan.filter((step) => step.detail.startsWith("SCAN ") || /TEMP B-TREE/.test(step.detail)).map((step) => `${step.detail} in: ${sql}`));
      expect(plans.length).toBeGreaterThan(8);
      expect(scans).toEqual([]);
      const due = plans.find(({ sql }) => /from "cron_jobs" where "next_run_at" <=/i.test(sql));
      expect(due?.plan.map((step) => step.detail).join("; ")).toContain("cron_jobs_due");
      const outcomes = plans.find(({ sql }) => /from "deliveries" where "session_key" =/i.test(sql));
      expect(outcomes?.plan.map((step) => step.detail).join("; ")).toContain("deliveries_by_session");
      expect(plans.filter(({ sql }) => /\blimit \?/i.test(sql))).toEqual([]);
    } finally {
      sqlite.close();
    }
  });
});
