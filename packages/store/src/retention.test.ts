import { afterEach, describe, expect, it } from "vitest";
import { DAY_MS } from "./retention.js";
import type { Store } from "./store.js";
import { conversation, dmSession, STORE_DIALECTS, storeFixtures } from "./test-fixtures.js";
import type { InboundStatus } from "./types.js";

describe.each(STORE_DIALECTS)("%s", (dialect) => {
  const fixtures = storeFixtures(dialect);
  afterEach(() => fixtures.cleanup());

  const NO_CHANGES = { inbound: 0, deliveries: 0, pairingRequests: 0, pairingFailures: 0, sessions: 0, messages: 0 };

  async function inbound(store: Store, messageId: string, status: InboundStatus): Promise<number> {
    const { record } = await store.inbound.recordIfNew({ platform: "telegram", messageId, payload: `{"text":"${messageId}"}`, status });
    return record.id;
  }

  async function delivery(store: Store, text: string, outcome: "sent" | "failed" | "pending"): Promise<number> {
    // A chat of its own, so the claim (oldest pending row of each chat) reaches it.
    const record = await store.deliveries.enqueue({ platform: "telegram", chatId: `chat-${text}`, text, kind: "reply" });
    if (outcome !== "pending") await store.deliveries.claim({ owner: "sender", platforms: ["telegram"], limit: 1_000, leaseMs: 60_000 });
    if (outcome === "sent") await store.deliveries.markSent(record.id, "sender");
    if (outcome === "failed") await store.deliveries.recordFailure(record.id, "sender", "403 Forbidden", { final: true });
    return record.id;
  }

  async function pairingRequest(store: Store, userId: string): Promise<void> {
    const now = fixtures.now();
    await store.pairing.createRequest({ platform: "telegram", userId, chatId: userId, codeHash: `hash-${userId}`, salt: "s", createdAt: now, expiresAt: now + 3_600_000 });
  }

  async function count(file: string, sql: string): Promise<number | undefined> {
    return (await fixtures.sql<{ n: number }>(file, sql))[0]?.n;
  }

  describe("retention", () => {
    it("deletes finished operational records older than the window and keeps recent and unfinished ones", async () => {
      const { store, file } = await fixtures.openNew();
      for (const status of ["answered", "failed", "cancelled", "ignored"] as const) await inbound(store, `old-${status}`, status);
      // One after the other: PostgreSQL numbers inserts on its pooled connections in whatever order they arrive.
      const oldOpen: number[] = [];
      for (const status of ["received", "queued", "running"] as const) oldOpen.push(await inbound(store, `old-${status}`, status));
      await delivery(store, "old sent", "sent");
      await delivery(store, "old failed", "failed");
      const oldPending = await delivery(store, "old pending", "pending");
      await pairingRequest(store, "old-user");
      await store.pairing.recordFailure("telegram", fixtures.now());
      await store.pairing.approve({ platform: "telegram", userId: "old-user" }, fixtures.now());

      fixtures.advance(31 * DAY_MS);
      const recentAnswered = await inbound(store, "recent-answered", "answered");
      await store.inbound.setStatus(recentAnswered, "answered");
      const recentSent = await delivery(store, "recent sent", "sent");
      await pairingRequest(store, "recent-user");
      await store.pairing.recordFailure("telegram", fixtures.now());

      const counts = await store.retention.prune({ now: fixtures.now(), days: 30 });
      expect(counts).toEqual({ inbound: 4, deliveries: 2, pairingRequests: 1, pairingFailures: 1, sessions: 0, messages: 0 });

      const remaining = (await store.inbound.recent(100)).map((record) => record.messageId).sort();
      expect(remaining).toEqual(["old-queued", "old-received", "old-running", "recent-answered"]);
      expect((await store.inbound.unfinished(10)).map((record) => record.id)).toEqual(oldOpen);
      expect((await store.deliveries.pending()).map((record) => record.id)).toEqual([oldPending]);
      expect(await count(file, "SELECT count(*) AS n FROM deliveries")).toBe(2);
      expect(await count(file, `SELECT count(*) AS n FROM deliveries WHERE id = ${recentSent}`)).toBe(1);
      expect((await store.pairing.latestRequestForUser("telegram", "recent-user"))?.userId).toBe("recent-user");
      expect(await store.pairing.latestRequestForUser("telegram", "old-user")).toBeUndefined();
      expect(await store.pairing.failuresSince("telegram", 0)).toBe(1);
      expect(await store.pairing.isApproved("telegram", "old-user")).toBe(true);

      expect(await store.retention.prune({ now: fixtures.now(), days: 30 })).toEqual(NO_CHANGES);
    });

    it("deletes the stream parts of streamed replies older than the window, in batches, with their inbound or alone", async () => {
      const { store, file } = await fixtures.openNew();
      const finished = await inbound(store, "old-finished", "answered");
      const stuck = await inbound(store, "old-stuck", "running");
      await store.streamParts.record(finished, 0, "finished-0");
      for (let part = 0; part < 520; part += 1) await store.streamParts.record(stuck, part, `stuck-${part}`);
      fixtures.advance(31 * DAY_MS);
      const recent = await inbound(store, "recent", "running");
      await store.streamParts.record(recent, 0, "recent-0");

      const counts = await store.retention.prune({ now: fixtures.now(), days: 30 });
      // The finished inbound's part went with it; the parts of the one still open went on their own.
      expect(counts).toEqual({ ...NO_CHANGES, inbound: 1, streamParts: 520 });
      expect(await store.streamParts.list(finished)).toEqual([]);
      expect(await store.streamParts.list(stuck)).toEqual([]);
      expect(await store.streamParts.list(recent)).toEqual(["recent-0"]);
      expect(await count(file, "SELECT count(*) AS n FROM stream_parts")).toBe(1);
    });

    it("deletes decided and expired approvals older than the window, keeping grants of conversations still active", async () => {
      const { store } = await fixtures.openNew();
      const { session: active } = await store.sessions.getOrCreateActive(dmSession("alice"));
      const { session: ended } = await store.sessions.getOrCreateActive(dmSession("bob"));
      await store.sessions.end(ended.key);
      const start = fixtures.now();
      const approval = async (id: string, sessionId: string, expiresAt = start + 300_000): Promise<void> => {
        await store.approvals.create({
          id,
          inboundId: 1,
          sessionKey: "agent:main:telegram:dm:x",
          sessionId,
          platform: "telegram",
          chatId: "x",
          requesterId: "x",
          tool: "terminal",
          summary: "ls",
          createdAt: fixtures.now(),
          expiresAt,
        });
      };
      const decide = (id: string, status: "approved" | "denied" | "expired", scope?: "once" | "session") =>
        store.approvals.decide(id, { status, ...(scope === undefined ? {} : { scope }), decidedBy: "x", decidedAt: fixtures.now() });
      await approval("denied01", active.id);
      await decide("denied01", "denied");
      await approval("onceold1", active.id);
      await decide("onceold1", "approved", "once");
      await approval("timedout", active.id);
      await decide("timedout", "expired");
      await approval("unanswer", active.id);
      await approval("grantact", active.id);
      await decide("grantact", "approved", "session");
      await approval("grantend", ended.id);
      await decide("grantend", "approved", "session");
      // Asked long ago and still open: a window counts from expiry, not from the question.
      await approval("longwait", active.id, start + 40 * DAY_MS);
      fixtures.advance(31 * DAY_MS);
      await approval("recent01", active.id, fixtures.now() + 300_000);
      await decide("recent01", "denied");

      expect(await store.retention.prune({ now: fixtures.now(), days: 30 })).toEqual({ ...NO_CHANGES, approvals: 5 });
      const left = [];
      for (const id of ["denied01", "onceold1", "timedout", "unanswer", "grantact", "grantend", "longwait", "recent01"]) {
        if ((await store.approvals.get(id)) !== undefined) left.push(id);
      }
      expect(left).toEqual(["grantact", "longwait", "recent01"]);
      expect(await store.approvals.grantedForSession(active.id, "terminal", "x")).toBe(true);
    });

    it("deletes sub-agent runs that ended before the window and keeps every cron job, done or not", async () => {
      const { store } = await fixtures.openNew();
      const run = (id: string) => ({
        id,
        parentSessionId: "s-1",
        parentToolCallId: "call-1",
        goal: "look",
        status: "done" as const,
        summary: "found",
        steps: 1,
        inputTokens: 1,
        outputTokens: 1,
        costUsd: 0,
        startedAt: fixtures.now(),
        endedAt: fixtures.now(),
      });
      for (let index = 0; index < 510; index += 1) await store.subagentRuns.record(run(`old-${index}`));
      const job = { platform: "telegram", chatId: "42", chatType: "dm", creatorId: "42", sessionKey: "agent:main:telegram:dm:42", schedule: "in 1m", kind: "once", prompt: "ping", createdAt: fixtures.now() } as const;
      await store.cronJobs.create({ ...job, id: "oneshot1", nextRunAt: null });
      await store.cronJobs.create({ ...job, id: "waiting1", nextRunAt: fixtures.now() + 40 * DAY_MS });
      fixtures.advance(31 * DAY_MS);
      await store.subagentRuns.record(run("recent"));

      expect(await store.retention.prune({ now: fixtures.now(), days: 30 })).toEqual({ ...NO_CHANGES, subagentRuns: 510 });
      expect((await store.subagentRuns.listForSession("s-1")).map((left) => left.id)).toEqual(["recent"]);
      expect((await store.cronJobs.listAll()).map((left) => left.id)).toEqual(["oneshot1", "waiting1"]);
    });

    it("keeps deduplicating a recent message that the platform redelivers", async () => {
      const { store } = await fixtures.openNew();
      const id = await inbound(store, "update-7", "queued");
      await store.inbound.setStatus(id, "answered");
      fixtures.advance(DAY_MS - 1);

      expect(await store.retention.prune({ now: fixtures.now(), days: 1 })).toEqual(NO_CHANGES);
      const redelivered = await store.inbound.recordIfNew({ platform: "telegram", messageId: "update-7", payload: "{}", status: "received" });
      expect(redelivered).toMatchObject({ created: false, record: { id, status: "answered" } });
    });

    it("measures age from a message's last change, not from its arrival", async () => {
      const { store } = await fixtures.openNew();
      const id = await inbound(store, "slow", "running");
      fixtures.advance(40 * DAY_MS);
      await store.inbound.setStatus(id, "answered");
      fixtures.advance(DAY_MS);
      expect((await store.retention.prune({ now: fixtures.now(), days: 30 })).inbound).toBe(0);
      fixtures.advance(30 * DAY_MS);
      expect((await store.retention.prune({ now: fixtures.now(), days: 30 })).inbound).toBe(1);
    });

    it("deletes in batches until nothing old is left", async () => {
      const { store } = await fixtures.openNew();
      for (let index = 0; index < 1_234; index += 1) await inbound(store, `bulk-${index}`, "answered");
      fixtures.advance(2 * DAY_MS);
      expect((await store.retention.prune({ now: fixtures.now(), days: 1 })).inbound).toBe(1_234);
      expect(await store.inbound.recent(10)).toEqual([]);
    });

    it("stops between batches once its signal is aborted", async () => {
      const { store } = await fixtures.openNew();
      for (let index = 0; index < 600; index += 1) await inbound(store, `bulk-${index}`, "answered");
      fixtures.advance(2 * DAY_MS);
      const controller = new AbortController();
      const pruning = store.retention.prune({ now: fixtures.now(), days: 1, signal: controller.signal });
      controller.abort();
      expect((await pruning).inbound).toBe(500);
      expect((await store.inbound.recent(1_000)).length).toBe(100);
      expect(await store.retention.prune({ now: fixtures.now(), days: 1, signal: AbortSignal.abort() })).toEqual(NO_CHANGES);
    });

    it("keeps conversation history unless a history window is given", async () => {
      const { store, file } = await fixtures.openNew();
      const { session: old } = await store.sessions.getOrCreateActive(dmSession("alice"));
      await store.messages.append(old.id, conversation("my tomatoes have blight", "try copper spray"));
      await store.usage.add(old.id, { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.01 });

      fixtures.advance(100 * DAY_MS);
      const { session: recent } = await store.sessions.getOrCreateActive(dmSession("bob"));
      await store.messages.append(recent.id, conversation("tomatoes again", "water less"));

      expect(await store.retention.prune({ now: fixtures.now(), days: 30 })).toEqual(NO_CHANGES);
      expect(await store.sessions.get(old.id)).toBeDefined();

      const counts = await store.retention.prune({ now: fixtures.now(), days: 30, historyDays: 90 });
      expect(counts).toMatchObject({ sessions: 1, messages: 2 });
      expect(await store.sessions.get(old.id)).toBeUndefined();
      expect(await store.messages.history(old.id)).toEqual([]);
      expect(await store.search({ platform: "telegram", userId: "alice", text: "tomatoes" })).toEqual([]);
      expect((await store.search({ platform: "telegram", userId: "bob", text: "tomatoes" })).length).toBe(1);
      expect(await count(file, "SELECT count(*) AS n FROM usage")).toBe(0);
      expect(await count(file, "SELECT count(*) AS n FROM messages")).toBe(2);

      // SQLite only: its FTS5 index is a table of its own, kept by triggers, and raises here when it still holds
      // entries of deleted messages; PostgreSQL's search vector is a column of the message row, deleted with it.
      if (dialect === "sqlite") await expect(fixtures.sql(file, "INSERT INTO messages_fts(messages_fts) VALUES ('integrity-check')")).resolves.toEqual([]);
    });

    it("keeps a long-idle conversation whose new message is still being answered", async () => {
      const { store } = await fixtures.openNew();
      const { session: idle } = await store.sessions.getOrCreateActive(dmSession("carol"));
      await store.messages.append(idle.id, conversation("hello", "hi"));
      const { session: done } = await store.sessions.getOrCreateActive(dmSession("dave"));
      await store.messages.append(done.id, conversation("hello", "hi"));
      await store.inbound.recordIfNew({ platform: "telegram", messageId: "finished", sessionKey: done.key, payload: "{}", status: "answered" });

      fixtures.advance(100 * DAY_MS);
      await store.inbound.recordIfNew({ platform: "telegram", messageId: "in-work", sessionKey: idle.key, payload: "{}", status: "running" });

      const counts = await store.retention.prune({ now: fixtures.now(), days: 30, historyDays: 90 });
      expect(counts).toMatchObject({ sessions: 1, messages: 2 });
      expect(await store.sessions.get(idle.id)).toBeDefined();
      expect(await store.sessions.get(done.id)).toBeUndefined();
    });

    it("rejects a window that is not a positive number of days", async () => {
      const { store } = await fixtures.openNew();
      await expect(store.retention.prune({ now: fixtures.now(), days: 0 })).rejects.toThrow(/days must be a positive integer/);
      await expect(store.retention.prune({ now: fixtures.now(), days: 30, historyDays: 1.5 })).rejects.toThrow(/historyDays/);
    });
  });
});

describe("postgres: retention under READ COMMITTED", () => {
  const fixtures = storeFixtures("postgres");
  afterEach(() => fixtures.cleanup());

  it("deletes an idle conversation whole when a message for it comes in while the prune's deletes run", async () => {
    const { store, file } = await fixtures.openNew();
    const { session } = await store.sessions.getOrCreateActive(dmSession("erin"));
    await store.messages.append(session.id, conversation("hello", "hi"));
    // A message for the conversation commits as soon as its messages are deleted (a trigger stands in for the
    // platform's timing): a second delete statement would see it and keep the session without its messages.
    await fixtures.sql(
      file,
      `CREATE FUNCTION arrive() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         INSERT INTO inbound (platform, message_id, session_key, status, payload, received_at, updated_at)
         SELECT 'telegram', 'arrived-' || s.id, s.key, 'received', '{}', 0, 0 FROM sessions s WHERE s.id = OLD.session_id
         ON CONFLICT DO NOTHING;
         RETURN OLD;
       END $$;
       CREATE TRIGGER arrive AFTER DELETE ON messages FOR EACH ROW EXECUTE FUNCTION arrive();`,
    );

    fixtures.advance(100 * DAY_MS);
    const counts = await store.retention.prune({ now: fixtures.now(), days: 30, historyDays: 90 });
    expect(counts).toMatchObject({ sessions: 1, messages: 2 });
    expect(await store.sessions.get(session.id)).toBeUndefined();
    expect(await store.messages.history(session.id)).toEqual([]);
  });
});
