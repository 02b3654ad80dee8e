import BetterSqlite3 from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { searchOwnerToken } from "./fts-query.js";
import { conversation, dmSession, STORE_DIALECTS, storeFixtures } from "./test-fixtures.js";

/**
 * FTS5's 'integrity-check' compares the index with the rows that exist, so it misses entries left behind for rows
 * that are gone (what a session deleted by ON DELETE CASCADE would leave): the owner tokens are compared on their own.
 */
function expectFtsIndexIntact(file: string): void {
  withDatabase(file, (sqlite) => {
    expect(() => sqlite.prepare("INSERT INTO messages_fts(messages_fts) VALUES ('integrity-check')").run()).not.toThrow();
    sqlite.exec("CREATE VIRTUAL TABLE temp.index_terms USING fts5vocab(main, messages_fts, col)");
    const indexed = sqlite.prepare("SELECT term, doc FROM temp.index_terms WHERE col = 'owner' ORDER BY term").all();
    const expected = sqlite
      .prepare("SELECT lower(owner) AS term, count(*) AS doc FROM messages_search_source WHERE owner IS NOT NULL GROUP BY 1 ORDER BY 1")
      .all();
    expect(indexed).toEqual(expected);
  });
}

function withDatabase<T>(file: string, work: (sqlite: BetterSqlite3.Database) => T): T {
  const sqlite = new BetterSqlite3(file);
  try {
    return work(sqlite);
  } finally {
    sqlite.close();
  }
}

describe("search index owner (SQLite's FTS5 owner token)", () => {
  const fixtures = storeFixtures("sqlite");
  afterEach(() => fixtures.cleanup());

  it("builds in JavaScript the token SQLite's triggers index, for any platform and user id", async () => {
    const { file } = await fixtures.openNew();
    const owners = [
      ["telegram", "42"],
      ["slack", "T01:U02"],
      ["discord", "élodie 東京 🍅"],
      ["x", ""],
    ] as const;
    withDatabase(file, (sqlite) => {
      const sqlToken = sqlite.prepare<[string, string], string>("SELECT hex(?) || 'X' || hex(?)").pluck();
      for (const [platform, userId] of owners) expect(searchOwnerToken(platform, userId)).toBe(sqlToken.get(platform, userId));
    });
    // Values that tokenize alike as text still get different tokens.
    expect(searchOwnerToken("telegram", "a b")).not.toBe(searchOwnerToken("telegram", "a-b"));
    expect(searchOwnerToken("tele", "gram1")).not.toBe(searchOwnerToken("telegram", "1"));
  });
});

describe.each(STORE_DIALECTS)("search owner on %s", (dialect) => {
  const fixtures = storeFixtures(dialect);
  afterEach(() => fixtures.cleanup());

  /** SQLite's index must also hold exactly the owners of the rows that exist; PostgreSQL's is the row's own column. */
  function expectIndexIntact(file: string): void {
    if (dialect === "sqlite") expectFtsIndexIntact(file);
  }

  it("keeps users whose ids differ only in punctuation or case apart", async () => {
    const { store } = await fixtures.openNew();
    for (const userId of ["a b", "a-b", "A-B", "東京"]) {
      const { session } = await store.sessions.getOrCreateActive(dmSession(userId));
      await store.messages.append(session.id, conversation(`lighthouse note of ${userId}`));
    }
    for (const userId of ["a b", "a-b", "A-B", "東京"]) {
      const hits = await store.search({ platform: "telegram", userId, text: "lighthouse" });
      expect(hits.map((hit) => hit.sessionKey)).toEqual([`agent:main:telegram:dm:${userId}`]);
    }
  });

  it("stays exact through truncation, deletion of sessions and changes of a session's user", async () => {
    const { store, file } = await fixtures.openNew();
    const { session: alice } = await store.sessions.getOrCreateActive(dmSession("alice"));
    await store.messages.append(alice.id, conversation("the lighthouse keeper", "a lighthouse at dawn", "lighthouse again"));
    const { session: bob } = await store.sessions.getOrCreateActive(dmSession("bob"));
    await store.messages.append(bob.id, conversation("bob's lighthouse"));

    expect(await store.messages.truncateFrom(alice.id, 1)).toBe(2);
    expectIndexIntact(file);
    expect((await store.search({ platform: "telegram", userId: "alice", text: "lighthouse" })).map((hit) => hit.seq)).toEqual([0]);

    // Nothing in the store moves a session to another user today; the search follows if something does.
    await fixtures.sql(file, `UPDATE sessions SET user_id = 'carol' WHERE id = '${alice.id}'`);
    expectIndexIntact(file);
    expect(await store.search({ platform: "telegram", userId: "alice", text: "lighthouse" })).toEqual([]);
    expect((await store.search({ platform: "telegram", userId: "carol", text: "lighthouse" })).map((hit) => hit.sessionId)).toEqual([alice.id]);

    // A session deleted directly (not through retention, which deletes its messages first) takes its index entries along.
    await fixtures.sql(file, `DELETE FROM sessions WHERE id = '${bob.id}'`);
    expectIndexIntact(file);
    expect(await store.search({ platform: "telegram", userId: "bob", text: "lighthouse" })).toEqual([]);
  });

  it("indexes messages of a session without a user without making them searchable by anyone", async () => {
    const { store, file } = await fixtures.openNew();
    const { session } = await store.sessions.getOrCreateActive({ key: "agent:main:telegram:group:-1", platform: "telegram", chatId: "-1", chatType: "group" });
    await store.messages.append(session.id, conversation("lighthouse in the group"));
    expectIndexIntact(file);
    expect(await store.search({ platform: "telegram", userId: "", text: "lighthouse" })).toEqual([]);
  });
});
