import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { waitUntil } from "../../../test/support/wait-until.js";
import { dmSession, STORE_DIALECTS, storeFixtures } from "./test-fixtures.js";

describe.each(STORE_DIALECTS)("%s", (dialect) => {
  const fixtures = storeFixtures(dialect);
  afterEach(() => fixtures.cleanup());

  describe("sessions", () => {
    it("creates one active session per key and returns it on later calls", async () => {
      const { store } = await fixtures.openNew();
      const first = await store.sessions.getOrCreateActive(dmSession("u1", { title: "Hello" }));
      expect(first.created).toBe(true);
      expect(first.session).toEqual({
        id: "session-0001",
        key: "agent:main:telegram:dm:u1",
        platform: "telegram",
        chatId: "u1",
        chatType: "dm",
        threadId: undefined,
        userId: "u1",
        title: "Hello",
        status: "active",
        parentId: undefined,
        model: undefined,
        createdAt: fixtures.now(),
        updatedAt: fixtures.now(),
      });

      const second = await store.sessions.getOrCreateActive(dmSession("u1"));
      expect(second).toEqual({ session: first.session, created: false });
      expect(await store.sessions.active("agent:main:telegram:dm:u1")).toEqual(first.session);
      expect(await store.sessions.get(first.session.id)).toEqual(first.session);
    });

    it("hands concurrent callers the same session", async () => {
      const { store } = await fixtures.openNew();
      const results = await Promise.all(Array.from({ length: 10 }, () => store.sessions.getOrCreateActive(dmSession("u1"))));
      expect(new Set(results.map((result) => result.session.id)).size).toBe(1);
      expect(results.filter((result) => result.created)).toHaveLength(1);
    });

    it("stores thread and group details", async () => {
      const { store } = await fixtures.openNew();
      const { session } = await store.sessions.getOrCreateActive({
        key: "agent:main:slack:channel:C1:T9",
        platform: "slack",
        chatId: "C1",
        chatType: "channel",
        threadId: "T9",
      });
      expect(session).toMatchObject({ chatType: "channel", threadId: "T9", userId: undefined });
    });

    it("ends the active session so the next call starts a new one", async () => {
      const { store } = await fixtures.openNew();
      const { session } = await store.sessions.getOrCreateActive(dmSession("u1"));
      fixtures.advance(1000);

      const ended = await store.sessions.end(session.key);
      expect(ended).toEqual({ ...session, status: "ended", updatedAt: fixtures.now() });
      expect(await store.sessions.active(session.key)).toBeUndefined();
      expect(await store.sessions.end(session.key)).toBeUndefined();

      const next = await store.sessions.getOrCreateActive(dmSession("u1"));
      expect(next.created).toBe(true);
      expect(next.session.id).not.toBe(session.id);
    });

    it("returns undefined for unknown ids and keys", async () => {
      const { store } = await fixtures.openNew();
      expect(await store.sessions.get("nope")).toBeUndefined();
      expect(await store.sessions.active("nope")).toBeUndefined();
    });

    it("continues a session as a child that inherits key, chat, user and model", async () => {
      const { store } = await fixtures.openNew();
      const { session: parent } = await store.sessions.getOrCreateActive(dmSession("u1", { title: "Trip planning" }));
      await store.sessions.setModel(parent.id, "anthropic/claude-sonnet-4-5");
      fixtures.advance(5000);

      const child = await store.sessions.continueAsChild(parent.id);
      expect(child).toMatchObject({
        key: parent.key,
        platform: "telegram",
        chatId: "u1",
        chatType: "dm",
        userId: "u1",
        title: "Trip planning",
        status: "active",
        parentId: parent.id,
        model: "anthropic/claude-sonnet-4-5",
        createdAt: fixtures.now(),
      });
      expect(child.id).not.toBe(parent.id);
      expect(await store.sessions.get(parent.id)).toMatchObject({ status: "ended" });
      expect(await store.sessions.active(parent.key)).toEqual(child);

      const grandchild = await store.sessions.continueAsChild(child.id, "Trip planning (2)");
      expect(grandchild).toMatchObject({ parentId: child.id, title: "Trip planning (2)" });
    });

    it("refuses to continue a missing session or one that is no longer the active one", async () => {
      const { store } = await fixtures.openNew();
      await expect(store.sessions.continueAsChild("missing")).rejects.toThrow(/does not exist/);

      const { session: old } = await store.sessions.getOrCreateActive(dmSession("u1"));
      await store.sessions.end(old.key);
      const { session: current } = await store.sessions.getOrCreateActive(dmSession("u1"));
      await expect(store.sessions.continueAsChild(old.id)).rejects.toThrow(/no longer the active/);
      expect(await store.sessions.active(old.key)).toEqual(current);
    });

    it("sets and clears the model override and sets the title", async () => {
      const { store } = await fixtures.openNew();
      const { session } = await store.sessions.getOrCreateActive(dmSession("u1"));
      fixtures.advance(10);
      await store.sessions.setModel(session.id, "openai/gpt-5");
      await store.sessions.setTitle(session.id, "Recipes");
      expect(await store.sessions.get(session.id)).toMatchObject({ model: "openai/gpt-5", title: "Recipes", updatedAt: fixtures.now() });
      await store.sessions.setModel(session.id, undefined);
      expect((await store.sessions.get(session.id))?.model).toBeUndefined();
    });

    it("keeps a title that carries a NUL character (PostgreSQL's text cannot hold one: it is dropped there)", async () => {
      const { store } = await fixtures.openNew();
      const { session } = await store.sessions.getOrCreateActive(dmSession("u1", { title: "first\u0000" }));
      await store.sessions.setTitle(session.id, "second\u0000title");
      const expected = dialect === "sqlite" ? "second\u0000title" : "secondtitle";
      expect(await store.sessions.get(session.id)).toMatchObject({ title: expected });
      expect((await store.sessions.getOrCreateActive(dmSession("u1"))).session.title).toBe(expected);
    });

    it("lists a user's sessions newest first, only theirs and only on that platform", async () => {
      const { store } = await fixtures.openNew();
      const { session: first } = await store.sessions.getOrCreateActive(dmSession("u1"));
      await store.sessions.end(first.key);
      fixtures.advance(1000);
      const { session: second } = await store.sessions.getOrCreateActive(dmSession("u1"));
      const { session: sameInstant } = await store.sessions.getOrCreateActive(dmSession("u1", { key: "agent:main:telegram:group:g1:u1", chatType: "group", chatId: "g1" }));
      await store.sessions.getOrCreateActive(dmSession("u2"));
      await store.sessions.getOrCreateActive(dmSession("u1", { platform: "discord", key: "agent:main:discord:dm:u1" }));

      const listed = await store.sessions.listForUser("telegram", "u1");
      expect(listed.map((session) => session.id)).toEqual([sameInstant.id, second.id, first.id]);
      expect((await store.sessions.listForUser("telegram", "u1", 2)).map((session) => session.id)).toEqual([sameInstant.id, second.id]);
      expect(await store.sessions.listForUser("telegram", "nobody")).toEqual([]);
    });
  });
});

// READ COMMITTED only: a statement that waited for a row lock re-checks that row alone, and rows committed meanwhile
// are not in its snapshot. SQLite's write lock orders the two transactions whole, so there is nothing to interleave.
describe("sessions on PostgreSQL, interleaved with another process's transaction", () => {
  const fixtures = storeFixtures("postgres");
  afterEach(() => fixtures.cleanup());

  it("ends the session that became active while /new waited for the old one's row lock", async () => {
    const { store, databaseUrl } = await fixtures.openNew();
    const { session: parent } = await store.sessions.getOrCreateActive(dmSession("u1"));
    // Another process compacts the conversation: it holds the parent's row, ends it and starts the child.
    const compactor = new pg.Client({ connectionString: databaseUrl });
    await compactor.connect();
    try {
      await compactor.query("BEGIN");
      await compactor.query("SELECT id FROM sessions WHERE id = $1 FOR UPDATE", [parent.id]);
      const ending = store.sessions.end(parent.key);
      await waitUntil(async () => {
        const { rows } = await compactor.query<{ waiting: number }>(
          "SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
        );
        return rows[0]?.waiting === 1;
      }, "the end of the session to wait for the row lock");
      await compactor.query("UPDATE sessions SET status = 'ended' WHERE id = $1", [parent.id]);
      await compactor.query(
        `INSERT INTO sessions (id, key, platform, chat_id, chat_type, thread_id, user_id, title, status, parent_id, model, created_at, updated_at)
         SELECT 'child', key, platform, chat_id, chat_type, thread_id, user_id, title, 'active', id, model, created_at, updated_at FROM sessions WHERE id = $1`,
        [parent.id],
      );
      await compactor.query("COMMIT");
      expect(await ending).toMatchObject({ id: "child", status: "ended" });
      expect(await store.sessions.active(parent.key)).toBeUndefined();
    } finally {
      await compactor.end();
    }
  });
});
