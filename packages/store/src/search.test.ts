import { afterEach, describe, expect, it } from "vitest";
import type { Store } from "./store.js";
import { assistantMessage, dmSession, storeFixtures, toolResultMessage, userMessage } from "./test-fixtures.js";

const fixtures = storeFixtures();
afterEach(() => fixtures.cleanup());

const alice = { platform: "telegram", userId: "alice" };

async function seeded(): Promise<{ store: Store; aliceOld: string; aliceCurrent: string; bob: string }> {
  const { store } = await fixtures.openNew();
  const { session: old } = await store.sessions.getOrCreateActive(dmSession("alice", { title: "Garden plans" }));
  await store.messages.append(old.id, [
    userMessage("Should I plant tomatoes or zucchini this spring?"),
    assistantMessage("Tomatoes need more sun; zucchini grows almost anywhere."),
    userMessage("We decided on tomatoes near the south fence."),
    toolResultMessage("Frost dates for Zürich: last frost mid-May."),
  ]);
  await store.sessions.end(old.key);
  fixtures.advance(86_400_000);
  const { session: current } = await store.sessions.getOrCreateActive(dmSession("alice"));
  await store.messages.append(current.id, [userMessage("what about tomatoes again?")]);
  const { session: bob } = await store.sessions.getOrCreateActive(dmSession("bob"));
  await store.messages.append(bob.id, [userMessage("my secret tomatoes recipe uses smoked paprika")]);
  return { store, aliceOld: old.id, aliceCurrent: current.id, bob: bob.id };
}

describe("search", () => {
  it("finds a user's messages with marked snippets, best match first", async () => {
    const { store, aliceOld } = await seeded();
    const hits = await store.search({ ...alice, text: "tomatoes fence" });
    expect(hits).toEqual([
      {
        sessionId: aliceOld,
        sessionKey: "agent:main:telegram:dm:alice",
        title: "Garden plans",
        seq: 2,
        role: "user",
        snippet: "We decided on [tomatoes] near the south [fence].",
        createdAt: fixtures.now() - 86_400_000,
      },
    ]);
  });

  it("never returns another user's sessions, nor the same user on another platform", async () => {
    const { store, bob } = await seeded();
    expect(await store.search({ ...alice, text: "paprika" })).toEqual([]);
    const bobsHits = await store.search({ platform: "telegram", userId: "bob", text: "tomatoes" });
    expect(bobsHits.map((hit) => hit.sessionId)).toEqual([bob]);
    expect(await store.search({ platform: "discord", userId: "alice", text: "tomatoes" })).toEqual([]);
  });

  it("excludes the given session", async () => {
    const { store, aliceOld, aliceCurrent } = await seeded();
    const all = await store.search({ ...alice, text: "tomatoes" });
    expect(new Set(all.map((hit) => hit.sessionId))).toEqual(new Set([aliceOld, aliceCurrent]));
    const past = await store.search({ ...alice, text: "tomatoes", excludeSessionId: aliceCurrent });
    expect(past.every((hit) => hit.sessionId === aliceOld)).toBe(true);
    expect(past.length).toBeGreaterThan(0);
  });

  it("ranks messages containing every term first and falls back to any term", async () => {
    const { store } = await seeded();
    const hits = await store.search({ ...alice, text: "zucchini sun" });
    expect(hits.map((hit) => hit.seq)).toEqual([1]);
    const partial = await store.search({ ...alice, text: "zucchini pumpkins" });
    expect(partial.map((hit) => hit.seq).sort()).toEqual([0, 1]);
  });

  it("requires stop words like any term, ranks by the other terms and marks them all in the snippet", async () => {
    const { store } = await seeded();
    const hits = await store.search({ ...alice, text: "the tomatoes" });
    expect(hits.map((hit) => hit.seq)).toEqual([2]);
    expect(hits[0]?.snippet).toBe("We decided on [tomatoes] near [the] south fence.");
    // No message holds both words: any word will do, and a stop word alone no longer makes a message a match.
    expect((await store.search({ ...alice, text: "the zucchini" })).map((hit) => hit.seq).sort()).toEqual([0, 1]);
  });

  it("lists the newest matches first when every term is a stop word", async () => {
    const { store, aliceOld } = await seeded();
    await store.messages.append(aliceOld, [userMessage("and the fence is done")]);
    const hits = await store.search({ ...alice, text: "the" });
    expect(hits.map((hit) => [hit.sessionId, hit.seq])).toEqual([
      [aliceOld, 4],
      [aliceOld, 2],
    ]);
    expect(hits[0]?.snippet).toBe("and [the] fence is done");
    expect(await store.search({ ...alice, text: "the", excludeSessionId: aliceOld })).toEqual([]);
  });

  it("respects the limit", async () => {
    const { store } = await seeded();
    expect(await store.search({ ...alice, text: "tomatoes", limit: 1 })).toHaveLength(1);
  });

  it("matches regardless of case and diacritics, and searches tool results", async () => {
    const { store } = await seeded();
    expect((await store.search({ ...alice, text: "ZURICH frost" })).map((hit) => hit.role)).toEqual(["toolResult"]);
  });

  it("treats hostile input as plain words and never throws", async () => {
    const { store } = await seeded();
    const hostile = [
      '"',
      '"unterminated',
      "NEAR(",
      "NEAR(tomatoes fence",
      "tomatoes NEAR/2 fence",
      "*",
      "tomat*",
      "-",
      "-tomatoes",
      "tomatoes -fence",
      "AND OR NOT",
      "text:tomatoes",
      "{text}: tomatoes",
      "^tomatoes",
      "(tomatoes",
      "tomatoes)",
      "tomatoes\u0000fence",
      "'; DROP TABLE messages; --",
      "🍅🍅🍅",
      "東京 тест العربية",
      "e\u0301",
      "x".repeat(10_000),
      "",
    ];
    for (const text of hostile) {
      await expect(store.search({ ...alice, text }), text.slice(0, 40)).resolves.toBeInstanceOf(Array);
    }
    expect((await store.search({ ...alice, text: '"tomatoes"' })).length).toBeGreaterThan(0);
    expect((await store.search({ ...alice, text: "-fence" })).map((hit) => hit.seq)).toEqual([2]);
    expect(await store.search({ ...alice, text: "*" })).toEqual([]);
    expect(await store.search({ ...alice, text: "tomat*" })).toEqual([]);
    // Still intact after the SQL-looking input.
    expect(await store.search({ ...alice, text: "tomatoes", limit: 50 })).toHaveLength(4);
  });
});
