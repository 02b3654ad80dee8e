import { silentLogger, type ToolContext } from "@hermes/agent";
import { Value } from "@sinclair/typebox/value";
import { afterEach, describe, expect, it } from "vitest";
import { sessionSearchTool } from "./session-search-tool.js";
import type { Store } from "./store.js";
import { assistantMessage, dmSession, STORE_DIALECTS, storeFixtures, userMessage } from "./test-fixtures.js";

function context(sessionId: string, caller?: ToolContext["caller"]): ToolContext {
  return { signal: new AbortController().signal, toolCallId: "call-1", sessionId, logger: silentLogger, caller };
}

describe("session_search tool definition", () => {
  it("is defined as the parallel-safe session_search tool with a bounded limit", () => {
    const tool = sessionSearchTool({ search: async () => [] });
    expect(tool).toMatchObject({ name: "session_search", concurrency: "parallel-safe" });
    expect(tool.guidance).toMatch(/memory/);
    expect(Value.Check(tool.parameters, { query: "x" })).toBe(true);
    expect(Value.Check(tool.parameters, { query: "x", limit: 20 })).toBe(true);
    expect(Value.Check(tool.parameters, { query: "x", limit: 21 })).toBe(false);
    expect(Value.Check(tool.parameters, { query: "x", limit: 1.5 })).toBe(false);
    expect(Value.Check(tool.parameters, {})).toBe(false);
  });
});

describe.each(STORE_DIALECTS)("%s", (dialect) => {
  const fixtures = storeFixtures(dialect);
  afterEach(() => fixtures.cleanup());

  async function seeded(): Promise<{ store: Store; past: string; current: string }> {
    const { store } = await fixtures.openNew();
    const { session: past } = await store.sessions.getOrCreateActive(dmSession("alice", { title: "Wedding speech" }));
    await store.messages.append(past.id, [userMessage("Help me write a wedding toast for my sister Clara"), assistantMessage("Here is a draft toast for Clara.")]);
    await store.sessions.end(past.key);
    fixtures.advance(3_600_000);
    const { session: current } = await store.sessions.getOrCreateActive(dmSession("alice"));
    await store.messages.append(current.id, [userMessage("remember the toast for Clara?")]);
    const { session: bob } = await store.sessions.getOrCreateActive(dmSession("bob"));
    await store.messages.append(bob.id, [userMessage("Clara owes me money")]);
    return { store, past: past.id, current: current.id };
  }

  describe("session_search tool", () => {
    it("finds the caller's earlier sessions, excluding the current one", async () => {
      const { store, past, current } = await seeded();
      const tool = sessionSearchTool(store);
      const result = await tool.handler({ query: "Clara" }, context(current, { platform: "telegram", userId: "alice" }));
      expect(result.isError).toBeUndefined();
      expect(result.details).toEqual({ hits: 2 });
      expect(result.content).toContain(`session ${past} (Wedding speech), 2023-11-14 22:13 UTC, user message #0:`);
      expect(result.content).toContain("[Clara]");
      expect(result.content).not.toContain(current);
      expect(result.content).not.toContain("money");
    });

    it("honours the limit and says when nothing matches", async () => {
      const { store, current } = await seeded();
      const tool = sessionSearchTool(store);
      const caller = { platform: "telegram", userId: "alice" };
      expect((await tool.handler({ query: "Clara", limit: 1 }, context(current, caller))).details).toEqual({ hits: 1 });
      const none = await tool.handler({ query: "spaceship" }, context(current, caller));
      expect(none).toEqual({ content: 'No matches for "spaceship" in earlier conversations.', details: { hits: 0 } });
    });

    it("shows the session key when a session has no title", async () => {
      const { store, current } = await seeded();
      const result = await sessionSearchTool(store).handler({ query: "toast remember" }, context("unrelated", { platform: "telegram", userId: "alice" }));
      expect(result.content).toContain(`session ${current} (agent:main:telegram:dm:alice)`);
    });

    it("returns an error without a known caller", async () => {
      const { store, current } = await seeded();
      const tool = sessionSearchTool(store);
      expect(await tool.handler({ query: "Clara" }, context(current))).toMatchObject({ isError: true });
      expect(await tool.handler({ query: "Clara" }, context(current, { platform: "telegram" }))).toMatchObject({ isError: true });
    });
  });
});
