import { afterEach, describe, expect, it } from "vitest";
import { STORE_DIALECTS, storeFixtures } from "./test-fixtures.js";
import type { SubagentRunRecord } from "./types.js";

describe.each(STORE_DIALECTS)("%s", (dialect) => {
  const fixtures = storeFixtures(dialect);
  afterEach(() => fixtures.cleanup());

  function run(id: string, overrides: Partial<SubagentRunRecord> = {}): SubagentRunRecord {
    const now = fixtures.now();
    return {
      id,
      parentSessionId: "session-a",
      parentToolCallId: "call-1",
      goal: "Find the cheapest flight to Lisbon",
      status: "done",
      summary: "TAP, 89 EUR on Tuesday",
      steps: 4,
      inputTokens: 5_000_000_000,
      outputTokens: 320,
      costUsd: 0.0125,
      startedAt: now,
      endedAt: now + 30_000,
      ...overrides,
    };
  }

  describe("sub-agent runs", () => {
    it("records each sub-agent of a session and lists them in the order they started", async () => {
      const { store } = await fixtures.openNew();
      const now = fixtures.now();
      const second = run("sub-2", { startedAt: now + 1, status: "failed", summary: "step budget of 20 spent", costUsd: 0 });
      const first = run("sub-1");
      const stopped = run("sub-3", { startedAt: now + 1, status: "stopped", parentToolCallId: "call-2" });
      for (const recorded of [second, first, stopped, run("sub-4", { parentSessionId: "session-b" })]) await store.subagentRuns.record(recorded);
      expect(await store.subagentRuns.listForSession("session-a")).toEqual([first, second, stopped]);
      expect(await store.subagentRuns.listForSession("session-b")).toEqual([run("sub-4", { parentSessionId: "session-b" })]);
      expect(await store.subagentRuns.listForSession("session-c")).toEqual([]);
    });

    it("keeps the first record of a sub-agent recorded again (a run taken up after a crash)", async () => {
      const { store } = await fixtures.openNew();
      const first = run("sub-1");
      await store.subagentRuns.record(first);
      await store.subagentRuns.record({ ...first, summary: "again", status: "failed" });
      expect(await store.subagentRuns.listForSession("session-a")).toEqual([first]);
    });
  });
});
