import { afterEach, describe, expect, it } from "vitest";
import type { CompleteRunInput } from "./complete-run.js";
import type { Store } from "./store.js";
import { assistantMessage, dmSession, STORE_DIALECTS, storeFixtures, userMessage } from "./test-fixtures.js";

describe.each(STORE_DIALECTS)("%s", (dialect) => {
  const fixtures = storeFixtures(dialect);
  afterEach(() => fixtures.cleanup());

  const usage = { inputTokens: 100, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.001 };

  async function runningInbound(store: Store) {
    const { session } = await store.sessions.getOrCreateActive(dmSession("u1"));
    const { record } = await store.inbound.recordIfNew({ platform: "telegram", messageId: "m1", payload: "{}", sessionKey: session.key, status: "queued" });
    await store.inbound.claimNext(session.key);
    const input: CompleteRunInput = {
      inboundId: record.id,
      sessionId: session.id,
      messages: [userMessage("hi"), assistantMessage("hello")],
      usage,
      deliveries: [{ platform: "telegram", chatId: "u1", text: "hello", kind: "reply", sessionKey: session.key, replyToMessageId: "m1" }],
    };
    return { session, inboundId: record.id, input };
  }

  describe("completeRun", () => {
    it("appends messages, adds usage, enqueues replies for the inbound and marks it answered", async () => {
      const { store } = await fixtures.openNew();
      const { session, inboundId, input } = await runningInbound(store);
      fixtures.advance(1000);

      expect(await store.completeRun(input)).toMatchObject({ ok: true });
      expect(await store.messages.history(session.id)).toEqual(input.messages);
      expect(await store.usage.forSession(session.id)).toMatchObject({ runs: 1, inputTokens: 100, outputTokens: 20 });
      expect(await store.deliveries.pending()).toEqual([
        expect.objectContaining({ inboundId, text: "hello", kind: "reply", replyToMessageId: "m1", status: "pending" }),
      ]);
      expect(await store.inbound.get(inboundId)).toMatchObject({ status: "answered", updatedAt: fixtures.now() });
    });

    it("is idempotent: a second completion of the same inbound changes nothing", async () => {
      const { store } = await fixtures.openNew();
      const { session, input } = await runningInbound(store);
      expect(await store.completeRun(input)).toMatchObject({ ok: true });
      expect(await store.completeRun({ ...input, status: "failed" })).toEqual({ ok: false, reason: "already_finished" });
      expect(await store.messages.count(session.id)).toBe(2);
      expect(await store.usage.forSession(session.id)).toMatchObject({ runs: 1 });
      expect(await store.deliveries.pending()).toHaveLength(1);
      expect(await store.inbound.get(input.inboundId)).toMatchObject({ status: "answered" });
    });

    it("lets only one of several concurrent completions through", async () => {
      const { store } = await fixtures.openNew();
      const { session, input } = await runningInbound(store);
      const results = await Promise.all(Array.from({ length: 5 }, () => store.completeRun(input)));
      expect(results.filter((result) => result.ok)).toHaveLength(1);
      expect(await store.messages.count(session.id)).toBe(2);
      expect(await store.deliveries.pending()).toHaveLength(1);
    });

    it("finishes a queued inbound too, records failures and works without usage", async () => {
      const { store } = await fixtures.openNew();
      const { session } = await store.sessions.getOrCreateActive(dmSession("u1"));
      const { record } = await store.inbound.recordIfNew({ platform: "telegram", messageId: "m9", payload: "{}", sessionKey: session.key, status: "queued" });
      const { record: earlier } = await store.inbound.recordIfNew({ platform: "telegram", messageId: "m8", payload: "{}", status: "answered" });
      const result = await store.completeRun({
        inboundId: record.id,
        sessionId: session.id,
        messages: [],
        deliveries: [{ platform: "telegram", chatId: "u1", text: "Sorry, something went wrong.", kind: "notice", inboundId: earlier.id }],
        status: "failed",
      });
      expect(result).toMatchObject({ ok: true });
      expect(await store.inbound.get(record.id)).toMatchObject({ status: "failed" });
      expect(await store.usage.forSession(session.id)).toMatchObject({ runs: 0 });
      expect(await store.deliveries.pending()).toEqual([expect.objectContaining({ inboundId: earlier.id, kind: "notice" })]);
    });

    it("refuses inbound messages that are unknown, cancelled or ignored", async () => {
      const { store } = await fixtures.openNew();
      const { session, input } = await runningInbound(store);
      expect(await store.completeRun({ ...input, inboundId: 999 })).toEqual({ ok: false, reason: "not_found" });

      await store.inbound.setStatus(input.inboundId, "cancelled");
      expect(await store.completeRun(input)).toEqual({ ok: false, reason: "already_finished" });
      expect(await store.messages.count(session.id)).toBe(0);
      expect(await store.deliveries.pending()).toEqual([]);
    });

    it("commits a reply that carries a NUL character and records such an error (PostgreSQL's text cannot hold one: it is dropped there)", async () => {
      const { store } = await fixtures.openNew();
      const { input } = await runningInbound(store);
      const [reply] = input.deliveries;
      if (reply === undefined) throw new Error("runningInbound has a reply");
      expect(await store.completeRun({ ...input, deliveries: [{ ...reply, text: "before\u0000after" }] })).toMatchObject({ ok: true });
      const [claimed] = await store.deliveries.claim({ owner: "sender", platforms: ["telegram"], limit: 1, leaseMs: 1_000 });
      expect(claimed?.text).toBe(dialect === "sqlite" ? "before\u0000after" : "beforeafter");
      expect(await store.deliveries.recordFailure(claimed?.id ?? 0, "sender", "reset\u0000", { final: true })).toBe(true);
      expect((await store.deliveries.get(claimed?.id ?? 0))?.lastError).toBe(dialect === "sqlite" ? "reset\u0000" : "reset");
    });

    it("rolls everything back when a part fails", async () => {
      const { store } = await fixtures.openNew();
      const { input } = await runningInbound(store);
      await expect(store.completeRun({ ...input, sessionId: "missing-session" })).rejects.toThrow(/FOREIGN KEY|foreign key constraint/);
      expect(await store.inbound.get(input.inboundId)).toMatchObject({ status: "running" });
      expect(await store.deliveries.pending()).toEqual([]);
    });

    it("continues a compacted run in a child session, in the same transaction", async () => {
      const { store } = await fixtures.openNew();
      const { session, inboundId, input } = await runningInbound(store);
      await store.messages.append(session.id, [userMessage("old"), assistantMessage("old answer")]);
      const result = await store.completeRun({ ...input, compacted: true, messages: [userMessage("[summary]"), assistantMessage("hello")] });
      if (!result.ok) throw new Error(result.reason);
      expect(result.sessionId).not.toBe(session.id);
      const child = await store.sessions.active(session.key);
      expect(child?.id).toBe(result.sessionId);
      expect(child?.parentId).toBe(session.id);
      expect((await store.sessions.get(session.id))?.status).toBe("ended");
      expect(await store.messages.count(session.id)).toBe(2);
      expect((await store.messages.history(result.sessionId)).length).toBe(2);
      expect((await store.inbound.get(inboundId))?.status).toBe("answered");
    });

    it("refuses a compacted run whose session was ended meanwhile (a /new wins) and changes nothing", async () => {
      const { store } = await fixtures.openNew();
      const { session, inboundId, input } = await runningInbound(store);
      await store.sessions.end(session.key);
      expect(await store.completeRun({ ...input, compacted: true })).toEqual({ ok: false, reason: "session_changed" });
      expect(await store.sessions.active(session.key)).toBeUndefined();
      expect((await store.inbound.get(inboundId))?.status).toBe("running");
      expect(await store.deliveries.pending()).toEqual([]);
    });
  });
});
