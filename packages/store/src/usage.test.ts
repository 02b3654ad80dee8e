import { afterEach, describe, expect, it } from "vitest";
import { dmSession, storeFixtures } from "./test-fixtures.js";

const fixtures = storeFixtures();
afterEach(() => fixtures.cleanup());

const run = { inputTokens: 1000, outputTokens: 200, cacheReadTokens: 500, cacheWriteTokens: 50, costUsd: 0.0125 };
const zero = { runs: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 };

describe("usage", () => {
  it("is zero for a session without runs", async () => {
    const { store } = await fixtures.openNew();
    expect(await store.usage.forSession("none")).toEqual({ sessionId: "none", ...zero });
    expect(await store.usage.forUser("telegram", "nobody")).toEqual(zero);
  });

  it("adds up runs per session", async () => {
    const { store } = await fixtures.openNew();
    const { session } = await store.sessions.getOrCreateActive(dmSession("u1"));
    await store.usage.add(session.id, run);
    await store.usage.add(session.id, { ...run, costUsd: 0.0075, outputTokens: 100 });
    expect(await store.usage.forSession(session.id)).toEqual({
      sessionId: session.id,
      runs: 2,
      inputTokens: 2000,
      outputTokens: 300,
      cacheReadTokens: 1000,
      cacheWriteTokens: 100,
      costUsd: 0.02,
    });
  });

  it("totals a user's sessions on one platform", async () => {
    const { store } = await fixtures.openNew();
    const { session: first } = await store.sessions.getOrCreateActive(dmSession("u1"));
    await store.sessions.end(first.key);
    const { session: second } = await store.sessions.getOrCreateActive(dmSession("u1"));
    const { session: other } = await store.sessions.getOrCreateActive(dmSession("u2"));
    await store.usage.add(first.id, run);
    await store.usage.add(second.id, run);
    await store.usage.add(other.id, run);

    const totals = await store.usage.forUser("telegram", "u1");
    expect(totals).toEqual({ runs: 2, inputTokens: 2000, outputTokens: 400, cacheReadTokens: 1000, cacheWriteTokens: 100, costUsd: 0.025 });
    expect(await store.usage.forUser("discord", "u1")).toEqual(zero);
  });
});
