import { afterEach, describe, expect, it } from "vitest";
import type { Store } from "./store.js";
import { dmSession, STORE_DIALECTS, storeFixtures } from "./test-fixtures.js";
import type { NewToolCheckpoint } from "./tool-checkpoints.js";

describe.each(STORE_DIALECTS)("%s", (dialect) => {
  const fixtures = storeFixtures(dialect);
  afterEach(() => fixtures.cleanup());

  async function runningInbound(store: Store, messageId = "m1") {
    const { session } = await store.sessions.getOrCreateActive(dmSession("u1"));
    const { record } = await store.inbound.recordIfNew({ platform: "telegram", messageId, payload: "{}", sessionKey: session.key, status: "queued" });
    await store.inbound.claimNext(session.key);
    return { session, inboundId: record.id };
  }

  const checkpoint = (inboundId: number, overrides: Partial<NewToolCheckpoint> = {}): NewToolCheckpoint => ({
    inboundId,
    step: 1,
    position: 0,
    toolCallId: "call_1",
    toolName: "terminal",
    argumentsHash: "hash-1",
    status: "ok",
    result: { content: "exit 0\nran", details: { exitCode: 0 } },
    durationMs: 12,
    ...overrides,
  });

  describe("tool checkpoints", () => {
    it("round-trips a run's finished calls in the order they were saved, and keeps runs apart", async () => {
      const { store } = await fixtures.openNew();
      const { inboundId } = await runningInbound(store);
      const other = await store.inbound.recordIfNew({ platform: "telegram", messageId: "m2", payload: "{}", sessionKey: "other", status: "queued" });

      expect(await store.toolCheckpoints.record(checkpoint(inboundId))).toEqual({ saved: true });
      await store.toolCheckpoints.record(checkpoint(inboundId, { step: 2, toolCallId: "call_2", status: "error", result: { content: "boom", isError: true } }));
      await store.toolCheckpoints.record(checkpoint(other.record.id, { toolCallId: "elsewhere" }));

      const { inboundId: _inbound, ...first } = checkpoint(inboundId);
      expect(await store.toolCheckpoints.forRun(inboundId)).toEqual([
        first,
        { ...first, step: 2, toolCallId: "call_2", status: "error", result: { content: "boom", isError: true } },
      ]);
      expect((await store.toolCheckpoints.forRun(other.record.id)).map((c) => c.toolCallId)).toEqual(["elsewhere"]);
    });

    it("are dropped by completeRun in its transaction, and a late call of a finished run is not saved", async () => {
      const { store } = await fixtures.openNew();
      const { session, inboundId } = await runningInbound(store);
      await store.toolCheckpoints.record(checkpoint(inboundId));

      expect(await store.completeRun({ inboundId, sessionId: session.id, messages: [], deliveries: [] })).toMatchObject({ ok: true });
      expect(await store.toolCheckpoints.forRun(inboundId)).toEqual([]);
      expect(await store.toolCheckpoints.record(checkpoint(inboundId, { toolCallId: "late" }))).toEqual({ saved: false });
      expect(await store.toolCheckpoints.forRun(inboundId)).toEqual([]);
    });

    it("are dropped when the message is given up on outside completeRun (marked failed), and kept while it is open", async () => {
      const { store } = await fixtures.openNew();
      const { inboundId } = await runningInbound(store);
      await store.toolCheckpoints.record(checkpoint(inboundId));
      await store.inbound.setStatus(inboundId, "running");
      expect(await store.toolCheckpoints.forRun(inboundId)).toHaveLength(1);

      await store.inbound.setStatus(inboundId, "failed");
      expect(await store.toolCheckpoints.forRun(inboundId)).toEqual([]);
    });

    it("are kept when a completion is refused (another worker finished the run first)", async () => {
      const { store } = await fixtures.openNew();
      const { session, inboundId } = await runningInbound(store);
      await store.completeRun({ inboundId, sessionId: session.id, messages: [], deliveries: [] });
      const second = await runningInbound(store, "m3");
      await store.toolCheckpoints.record(checkpoint(second.inboundId));
      expect(await store.completeRun({ inboundId, sessionId: session.id, messages: [], deliveries: [] })).toMatchObject({ ok: false });
      expect(await store.toolCheckpoints.forRun(second.inboundId)).toHaveLength(1);
    });

    it("go with their inbound message when retention deletes it", async () => {
      const { store, file } = await fixtures.openNew();
      const { inboundId } = await runningInbound(store);
      await store.toolCheckpoints.record(checkpoint(inboundId));
      // A run whose completion could not be recorded is only marked failed; retention later removes it.
      await store.inbound.setStatus(inboundId, "failed");
      fixtures.advance(3 * 86_400_000);
      await store.retention.prune({ now: fixtures.now(), days: 1 });
      expect(await store.toolCheckpoints.forRun(inboundId)).toEqual([]);
      expect(await fixtures.sql(file, "SELECT count(*) AS n FROM tool_checkpoints")).toEqual([{ n: 0 }]);
    });

    it("skips a damaged row instead of failing the run", async () => {
      const { store, file } = await fixtures.openNew();
      const { inboundId } = await runningInbound(store);
      await store.toolCheckpoints.record(checkpoint(inboundId));
      await store.toolCheckpoints.record(checkpoint(inboundId, { toolCallId: "call_2", position: 1 }));
      await fixtures.sql(file, "UPDATE tool_checkpoints SET result = '{not json' WHERE tool_call_id = 'call_1'");
      expect((await store.toolCheckpoints.forRun(inboundId)).map((c) => c.toolCallId)).toEqual(["call_2"]);
    });

    it("keep a run's model replies by step; saving a step replaces it and every later one", async () => {
      const { store } = await fixtures.openNew();
      const { inboundId } = await runningInbound(store);
      const reply = (text: string) => ({ role: "assistant", content: [{ type: "text", text }] });
      expect(await store.toolCheckpoints.recordStep({ inboundId, step: 1, message: reply("one") })).toEqual({ saved: true });
      await store.toolCheckpoints.recordStep({ inboundId, step: 2, message: reply("two") });
      await store.toolCheckpoints.recordStep({ inboundId, step: 3, message: reply("three") });
      expect(await store.toolCheckpoints.stepsForRun(inboundId)).toEqual([
        { step: 1, message: reply("one") },
        { step: 2, message: reply("two") },
        { step: 3, message: reply("three") },
      ]);

      // A re-execution that asked the model afresh at step 2 went another way: the old step 3 is not part of it.
      await store.toolCheckpoints.recordStep({ inboundId, step: 2, message: reply("two, again") });
      expect(await store.toolCheckpoints.stepsForRun(inboundId)).toEqual([{ step: 1, message: reply("one") }, { step: 2, message: reply("two, again") }]);
    });

    it("drop a run's model replies with its checkpoints when it completes or is given up, and skip a damaged one", async () => {
      const { store, file } = await fixtures.openNew();
      const { session, inboundId } = await runningInbound(store);
      await store.toolCheckpoints.recordStep({ inboundId, step: 1, message: { role: "assistant" } });
      await store.toolCheckpoints.recordStep({ inboundId, step: 2, message: { role: "assistant" } });
      await fixtures.sql(file, "UPDATE run_steps SET message = '{not json' WHERE step = 1");
      expect((await store.toolCheckpoints.stepsForRun(inboundId)).map((s) => s.step)).toEqual([2]);

      expect(await store.completeRun({ inboundId, sessionId: session.id, messages: [], deliveries: [] })).toMatchObject({ ok: true });
      expect(await store.toolCheckpoints.stepsForRun(inboundId)).toEqual([]);
      expect(await store.toolCheckpoints.recordStep({ inboundId, step: 3, message: {} })).toEqual({ saved: false });

      const second = await runningInbound(store, "m4");
      await store.toolCheckpoints.recordStep({ inboundId: second.inboundId, step: 1, message: {} });
      await store.inbound.setStatus(second.inboundId, "failed");
      expect(await store.toolCheckpoints.stepsForRun(second.inboundId)).toEqual([]);
    });
  });
});
