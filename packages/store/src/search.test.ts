import { createHash } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import type { Store } from "./store.js";
import { assistantMessage, dmSession, STORE_DIALECTS, storeFixtures, toolResultMessage, userMessage } from "./test-fixtures.js";

const alice = { platform: "telegram", userId: "alice" };

describe.each(STORE_DIALECTS)("%s", (dialect) => {
  const fixtures = storeFixtures(dialect);
  afterEach(() => fixtures.cleanup());

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

    it("never returns another user's messages, even when theirs hold the same words", async () => {
      const { store } = await fixtures.openNew();
      const owners = [dmSession("alice"), dmSession("bob"), dmSession("alice", { key: "agent:main:discord:dm:alice", platform: "discord" })];
      const sessions = new Map<string, string>();
      for (const owner of owners) {
        const { session } = await store.sessions.getOrCreateActive(owner);
        await store.messages.append(session.id, [userMessage("the shared lighthouse secret"), assistantMessage("a lighthouse secret")]);
        sessions.set(`${owner.platform}:${owner.userId}`, session.id);
      }
      const { session: group } = await store.sessions.getOrCreateActive({ key: "agent:main:telegram:group:-1", platform: "telegram", chatId: "-1", chatType: "group" });
      await store.messages.append(group.id, [userMessage("the shared lighthouse secret")]);
      for (const text of ["lighthouse secret", "lighthouse pumpkins", "the"]) {
        for (const [owner, sessionId] of sessions) {
          const [platform = "", userId = ""] = owner.split(":");
          const hits = await store.search({ platform, userId, text, limit: 50 });
          expect(hits.length, `${owner} ${text}`).toBeGreaterThan(0);
          expect(new Set(hits.map((hit) => hit.sessionId)), `${owner} ${text}`).toEqual(new Set([sessionId]));
        }
      }
    });

    it("keeps sessions apart whose ids look like query syntax", async () => {
      const ids = ["it's", "a' | 'b", "back\\slash", "'", "x:*"];
      let next = 0;
      const { store } = await fixtures.openNew({ newId: () => ids[next++] ?? `extra-${next}` });
      const owners = ["alice", "bob", "carol", "dave", "erin"];
      for (const userId of owners) {
        const { session } = await store.sessions.getOrCreateActive(dmSession(userId));
        await store.messages.append(session.id, [userMessage(`lighthouse keeper notes of ${userId}`)]);
      }
      for (const [index, userId] of owners.entries()) {
        const hits = await store.search({ platform: "telegram", userId, text: "lighthouse keeper" });
        expect(hits.map((hit) => hit.sessionId)).toEqual([ids[index]]);
      }
    });

    it("ranks the matches of a user with more sessions than one query names", async () => {
      const { store } = await fixtures.openNew();
      const sessionIds: string[] = [];
      for (let index = 0; index < 501; index += 1) {
        const { session } = await store.sessions.getOrCreateActive(dmSession("alice"));
        if (index % 100 === 0) await store.messages.append(session.id, [userMessage(index === 500 ? "lighthouse lighthouse" : "a lighthouse")]);
        await store.sessions.end(session.key);
        sessionIds.push(session.id);
      }
      const { session: bob } = await store.sessions.getOrCreateActive(dmSession("bob"));
      await store.messages.append(bob.id, [userMessage("lighthouse lighthouse lighthouse")]);
      const hits = await store.search({ ...alice, text: "lighthouse", limit: 50 });
      expect(hits.map((hit) => hit.sessionId)).toEqual([500, 400, 300, 200, 100, 0].map((index) => sessionIds[index]));
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

    it("matches whole words only: neither a quoted term on SQLite nor a word on PostgreSQL is a prefix", async () => {
      const { store } = await seeded();
      expect(await store.search({ ...alice, text: "tomato" })).toEqual([]);
      expect(await store.search({ ...alice, text: "tomat" })).toEqual([]);
      expect((await store.search({ ...alice, text: "zucchini" })).length).toBe(2);
    });

    it("folds case and accents of any script, in the messages and in the query", async () => {
      const { store } = await fixtures.openNew();
      const { session } = await store.sessions.getOrCreateActive(dmSession("alice"));
      await store.messages.append(session.id, [userMessage("Über die Brücke nach МОСКВА"), userMessage("a crème brûlée in 東京")]);
      const seqs = async (text: string): Promise<number[]> => (await store.search({ ...alice, text })).map((hit) => hit.seq);
      expect(await seqs("uber brucke")).toEqual([0]);
      expect(await seqs("ÜBER москва")).toEqual([0]);
      expect(await seqs("CREME Brulee")).toEqual([1]);
      expect(await seqs("東京")).toEqual([1]);
    });

    it("cuts a short snippet around the terms of a long message", async () => {
      const { store } = await fixtures.openNew();
      const { session } = await store.sessions.getOrCreateActive(dmSession("alice"));
      const filler = (from: number): string => Array.from({ length: 60 }, (_, index) => `word${from + index}`).join(" ");
      await store.messages.append(session.id, [userMessage(`${filler(0)} the lighthouse keeper ${filler(100)}`)]);
      const [hit] = await store.search({ ...alice, text: "lighthouse keeper" });
      expect(hit?.snippet).toContain("[lighthouse] [keeper]");
      expect(hit?.snippet.split(/\s+/u).length).toBeLessThanOrEqual(18);
    });

    it("stores and searches a message too large to index whole, by its beginning", async () => {
      const { store } = await fixtures.openNew();
      const { session } = await store.sessions.getOrCreateActive(dmSession("alice"));
      // 1.3 MB of distinct tokens: more lexemes than one PostgreSQL tsvector holds.
      const hashes = Array.from({ length: 40_000 }, (_, index) => createHash("md5").update(String(index)).digest("hex")).join(" ");
      await store.messages.append(session.id, [toolResultMessage(`lighthouse log ${hashes}`)]);
      expect((await store.search({ ...alice, text: "lighthouse" })).map((hit) => hit.role)).toEqual(["toolResult"]);
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
      expect(await store.search({ ...alice, text: "x".repeat(10_000) })).toEqual([]);
      // Still intact after the SQL-looking input.
      expect(await store.search({ ...alice, text: "tomatoes", limit: 50 })).toHaveLength(4);
    });
  });
});
