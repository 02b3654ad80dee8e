import { afterEach, describe, expect, it } from "vitest";
import { assistantMessage, dmSession, STORE_DIALECTS, storeFixtures, toolResultMessage, userMessage } from "./test-fixtures.js";

describe.each(STORE_DIALECTS)("%s", (dialect) => {
  const fixtures = storeFixtures(dialect);
  afterEach(() => fixtures.cleanup());

  async function storeWithSession() {
    const { store } = await fixtures.openNew();
    const { session } = await store.sessions.getOrCreateActive(dmSession("u1"));
    return { store, session };
  }

  describe("messages", () => {
    it("appends in order, continuing the sequence across calls", async () => {
      const { store, session } = await storeWithSession();
      const first = [userMessage("hi"), assistantMessage("hello!", 3)];
      await store.messages.append(session.id, first);
      fixtures.advance(1000);
      await store.messages.append(session.id, [userMessage("how are you?"), toolResultMessage("fine")]);

      expect(await store.messages.history(session.id)).toEqual([...first, userMessage("how are you?"), toolResultMessage("fine")]);
      const listed = await store.messages.list(session.id);
      expect(listed.map((entry) => entry.seq)).toEqual([0, 1, 2, 3]);
      expect(listed[0]).toEqual({ sessionId: session.id, seq: 0, message: userMessage("hi"), tokens: 1, createdAt: fixtures.now() - 1000 });
      expect(listed[1]?.tokens).toBe(3);
      expect(listed[2]?.createdAt).toBe(fixtures.now());
      expect(await store.messages.count(session.id)).toBe(4);
    });

    it("appends a transcript longer than one insert batch whole and in order, each message searchable", async () => {
      const { store, session } = await storeWithSession();
      await store.messages.append(session.id, [userMessage("before")]);
      const long = Array.from({ length: 1_203 }, (_, i) => (i % 2 === 0 ? userMessage(`question number${i}`) : assistantMessage(`answer number${i}`)));
      await store.messages.append(session.id, long);

      expect(await store.messages.history(session.id)).toEqual([userMessage("before"), ...long]);
      expect((await store.messages.list(session.id)).map((entry) => entry.seq)).toEqual(Array.from({ length: 1_204 }, (_, i) => i));
      const hits = await store.search({ text: "number1202", platform: "telegram", userId: "u1" });
      expect(hits.map((hit) => hit.seq)).toEqual([1_203]);
    });

    it("bumps the session's updatedAt when messages are added", async () => {
      const { store, session } = await storeWithSession();
      fixtures.advance(60_000);
      await store.messages.append(session.id, [userMessage("later")]);
      expect((await store.sessions.get(session.id))?.updatedAt).toBe(fixtures.now());
    });

    it("keeps sessions apart", async () => {
      const { store, session } = await storeWithSession();
      const { session: other } = await store.sessions.getOrCreateActive(dmSession("u2"));
      await store.messages.append(session.id, [userMessage("mine")]);
      await store.messages.append(other.id, [userMessage("theirs")]);
      expect(await store.messages.history(session.id)).toEqual([userMessage("mine")]);
      expect((await store.messages.list(other.id))[0]?.seq).toBe(0);
    });

    it("appends nothing for an empty list and reports an empty session", async () => {
      const { store, session } = await storeWithSession();
      await store.messages.append(session.id, []);
      expect(await store.messages.history(session.id)).toEqual([]);
      expect(await store.messages.list(session.id)).toEqual([]);
      expect(await store.messages.count(session.id)).toBe(0);
      expect(await store.messages.lastUserSeq(session.id)).toBeUndefined();
    });

    it("finds the last user message and truncates from a position", async () => {
      const { store, session } = await storeWithSession();
      await store.messages.append(session.id, [
        userMessage("one"),
        assistantMessage("two"),
        userMessage("three"),
        assistantMessage("four"),
        toolResultMessage("five"),
      ]);
      expect(await store.messages.lastUserSeq(session.id)).toBe(2);

      expect(await store.messages.truncateFrom(session.id, 2)).toBe(3);
      expect(await store.messages.history(session.id)).toEqual([userMessage("one"), assistantMessage("two")]);
      expect(await store.messages.lastUserSeq(session.id)).toBe(0);
      expect(await store.messages.truncateFrom(session.id, 10)).toBe(0);

      await store.messages.append(session.id, [userMessage("again")]);
      expect((await store.messages.list(session.id)).map((entry) => entry.seq)).toEqual([0, 1, 2]);
    });

    it("removes truncated messages from search", async () => {
      const { store, session } = await storeWithSession();
      const { session: current } = await store.sessions.getOrCreateActive(dmSession("u1", { key: "other-key" }));
      await store.messages.append(session.id, [userMessage("keep the aardvark"), userMessage("drop the zebra")]);
      await store.messages.truncateFrom(session.id, 1);
      const query = { platform: "telegram", userId: "u1", excludeSessionId: current.id };
      expect(await store.search({ ...query, text: "zebra" })).toEqual([]);
      expect(await store.search({ ...query, text: "aardvark" })).toHaveLength(1);
    });
  });
});
