import type { Message } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { assistantMessage, dmSession, STORE_DIALECTS, storeFixtures, userMessage } from "./test-fixtures.js";

describe.each(STORE_DIALECTS)("two stores on one database (%s)", (dialect) => {
  const fixtures = storeFixtures(dialect);
  afterEach(() => fixtures.cleanup());

  async function twoStores() {
    const { store: gateway, file } = await fixtures.openNew();
    const worker = await fixtures.open(file);
    return { gateway, worker, file };
  }

  it("see each other's writes", async () => {
    const { gateway, worker } = await twoStores();
    const { session } = await gateway.sessions.getOrCreateActive(dmSession("u1"));
    await worker.messages.append(session.id, [userMessage("from the worker")]);
    expect(await gateway.messages.history(session.id)).toEqual([userMessage("from the worker")]);

    const { record } = await gateway.inbound.recordIfNew({ platform: "telegram", messageId: "m1", payload: "{}", sessionKey: session.key, status: "queued" });
    expect(await worker.inbound.claimNext(session.key)).toMatchObject({ id: record.id, status: "running" });
    expect(await gateway.inbound.unanswered(session.key)).toBe(1);

    await worker.pairing.approve({ platform: "telegram", userId: "u9" }, 1);
    expect(await gateway.pairing.isApproved("telegram", "u9")).toBe(true);
  });

  it("agree on one active session when both create it at once", async () => {
    const { gateway, worker } = await twoStores();
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, index) => (index % 2 === 0 ? gateway : worker).sessions.getOrCreateActive(dmSession("u1"))),
    );
    expect(new Set(results.map((result) => result.session.id)).size).toBe(1);
    expect(results.filter((result) => result.created)).toHaveLength(1);
  });

  it("record a redelivered event once", async () => {
    const { gateway, worker } = await twoStores();
    const input = { platform: "discord", messageId: "123", payload: "{}", status: "queued" as const };
    const [a, b] = await Promise.all([gateway.inbound.recordIfNew(input), worker.inbound.recordIfNew(input)]);
    expect([a?.created, b?.created].sort()).toEqual([false, true]);
    expect(a?.record.id).toBe(b?.record.id);
  });

  it("complete a run exactly once when two workers finish it", async () => {
    const { gateway, worker } = await twoStores();
    const { session } = await gateway.sessions.getOrCreateActive(dmSession("u1"));
    const { record } = await gateway.inbound.recordIfNew({ platform: "telegram", messageId: "m1", payload: "{}", sessionKey: session.key, status: "running" });
    const input = {
      inboundId: record.id,
      sessionId: session.id,
      messages: [userMessage("q"), assistantMessage("a")],
      deliveries: [{ platform: "telegram", chatId: "u1", text: "a", kind: "reply" as const }],
    };
    const results = await Promise.all([gateway.completeRun(input), worker.completeRun(input)]);
    expect(results.filter((result) => result.ok)).toHaveLength(1);
    expect(results.filter((result) => !result.ok)).toEqual([{ ok: false, reason: "already_finished" }]);
    expect(await worker.messages.count(session.id)).toBe(2);
    expect(await gateway.deliveries.pending()).toHaveLength(1);
  });

  it("complete a run exactly once when one worker finishes it compacted and the other plainly, at once", async () => {
    const { gateway, worker, file } = await twoStores();
    const { session } = await gateway.sessions.getOrCreateActive(dmSession("u1"));
    for (let round = 0; round < 5; round++) {
      const { record } = await gateway.inbound.recordIfNew({ platform: "telegram", messageId: `m${round}`, payload: "{}", sessionKey: session.key, status: "running" });
      const current = await gateway.sessions.active(session.key);
      if (current === undefined) throw new Error("the key has an active session");
      const input = { inboundId: record.id, sessionId: current.id, messages: [userMessage("q"), assistantMessage("a")], deliveries: [] };
      // The compacted finish locks the session, then the inbound; the plain one the inbound, then the session.
      const results = await Promise.all([gateway.completeRun({ ...input, compacted: true }), worker.completeRun(input)]);
      expect(results.filter((result) => result.ok)).toHaveLength(1);
      expect(results.filter((result) => !result.ok)).toEqual([{ ok: false, reason: "already_finished" }]);
    }
    // PostgreSQL breaks a deadlock only after deadlock_timeout, failing one side (then retried): both take the locks
    // in one order, so none happens. SQLite has one write lock and nothing to count.
    if (dialect === "postgres") {
      expect(await fixtures.sql(file, "SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()")).toEqual([{ deadlocks: 0 }]);
    }
  });

  it("continue one session into exactly one child when both compact it at once", async () => {
    const { gateway, worker } = await twoStores();
    const { session: parent } = await gateway.sessions.getOrCreateActive(dmSession("u1"));
    const results = await Promise.allSettled([gateway.sessions.continueAsChild(parent.id), worker.sessions.continueAsChild(parent.id)]);
    const children = results.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
    expect(children).toHaveLength(1);
    expect(results.find((result) => result.status === "rejected")).toMatchObject({ reason: expect.objectContaining({ message: expect.stringMatching(/no longer the active/) }) });
    expect(await worker.sessions.active(parent.key)).toEqual(children[0]);
    expect(await gateway.sessions.get(parent.id)).toMatchObject({ status: "ended" });
  });

  it("leave no tool checkpoint behind a run finished while the other saves one", async () => {
    const { gateway, worker } = await twoStores();
    const { session } = await gateway.sessions.getOrCreateActive(dmSession("u1"));
    const { record } = await gateway.inbound.recordIfNew({ platform: "telegram", messageId: "m1", payload: "{}", sessionKey: session.key, status: "running" });
    const checkpoint = (position: number) => ({
      inboundId: record.id,
      step: 1,
      position,
      toolCallId: `call_${position}`,
      toolName: "terminal",
      argumentsHash: "hash",
      status: "ok",
      result: { content: "ran" },
      durationMs: 1,
    });
    // A worker that lost its lease still saves calls while the new holder finishes the run.
    const [, completion] = await Promise.all([
      Promise.all(Array.from({ length: 8 }, (_, position) => worker.toolCheckpoints.record(checkpoint(position)))),
      gateway.completeRun({ inboundId: record.id, sessionId: session.id, messages: [], deliveries: [] }),
    ]);
    expect(completion).toMatchObject({ ok: true });
    expect(await gateway.toolCheckpoints.forRun(record.id)).toEqual([]);
    expect(await worker.toolCheckpoints.record(checkpoint(9))).toEqual({ saved: false });
  });

  it("keep one model reply per step when both save the same step of a run at once", async () => {
    const { gateway, worker } = await twoStores();
    const { record } = await gateway.inbound.recordIfNew({ platform: "telegram", messageId: "m1", payload: "{}", sessionKey: "k", status: "running" });
    // A worker that lost its lease and the one that took the run over, both at their second model call.
    await gateway.toolCheckpoints.recordStep({ inboundId: record.id, step: 1, message: { text: "one" } });
    const saves = await Promise.all(
      Array.from({ length: 6 }, (_, index) => (index % 2 === 0 ? gateway : worker).toolCheckpoints.recordStep({ inboundId: record.id, step: 2, message: { text: `two-${index}` } })),
    );
    expect(saves).toEqual(Array.from({ length: 6 }, () => ({ saved: true })));
    const steps = await worker.toolCheckpoints.stepsForRun(record.id);
    expect(steps.map((step) => step.step)).toEqual([1, 2]);
  });

  it("append to one session in turns when both append at once, each message at a position of its own", async () => {
    const { gateway, worker } = await twoStores();
    const { session } = await gateway.sessions.getOrCreateActive(dmSession("u1"));
    await Promise.all(
      Array.from({ length: 10 }, (_, index) => (index % 2 === 0 ? gateway : worker).messages.append(session.id, [userMessage(`q${index}`), assistantMessage(`a${index}`)])),
    );
    const stored = await worker.messages.list(session.id);
    expect(stored.map((entry) => entry.seq)).toEqual(Array.from({ length: 20 }, (_, seq) => seq));
    const texts = stored.map((entry) => textOf(entry.message));
    // Each append's two messages stay together: q3 is followed by a3.
    for (let at = 0; at < texts.length; at += 2) expect(texts[at + 1]).toBe(texts[at]?.replace("q", "a"));
    expect(new Set(texts).size).toBe(20);
  });
});

function textOf(message: Message): string {
  if (typeof message.content === "string") return message.content;
  return message.content.map((part) => (part.type === "text" ? part.text : "")).join("");
}
