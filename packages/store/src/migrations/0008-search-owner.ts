import { sql, type Kysely, type Migration } from "kysely";

/**
 * The full-text index gains an `owner` column holding one token per (platform, user id) of the message's session, so
 * a search ANDs the user's token with the query terms and FTS5 intersects doclists instead of ranking every user's
 * matches (a one-word query of a common word used to rank half the corpus). The token is the hex of both values
 * around an `X`: hex digits are letters and digits only, so unicode61 keeps it as one token, and no two (platform,
 * user) pairs share one. It is computed in SQL so the triggers keep the index on their own, whoever writes the rows;
 * search.ts builds the same token for the query (`searchOwnerToken`).
 *
 * Kept exact by triggers: a message's row is indexed with its session's token, removed with the same token, and a
 * session whose platform or user changes is re-indexed. FTS5 must be told the values a row was indexed with when it is
 * removed, so a session's messages are deleted before the session row goes (an ON DELETE CASCADE would run after it,
 * when the token can no longer be looked up).
 */
const OWNER_OF_SESSION = (alias: string): string =>
  `CASE WHEN ${alias}.user_id IS NULL THEN NULL ELSE hex(${alias}.platform) || 'X' || hex(${alias}.user_id) END`;

const ownerOfSessionId = (sessionId: string): string => `(SELECT ${OWNER_OF_SESSION("s")} FROM sessions AS s WHERE s.id = ${sessionId})`;

export const searchOwnerMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    for (const trigger of ["messages_fts_insert", "messages_fts_delete", "messages_fts_update"]) {
      await sql`DROP TRIGGER IF EXISTS ${sql.id(trigger)}`.execute(db);
    }
    await sql`DROP TABLE IF EXISTS messages_fts`.execute(db);

    // What FTS5 reads a row's columns from (snippets, rebuild, integrity-check): the message with its session's token.
    await sql`CREATE VIEW messages_search_source AS
      SELECT m.id AS id, m.text AS text, ${sql.raw(OWNER_OF_SESSION("s"))} AS owner
      FROM messages AS m LEFT JOIN sessions AS s ON s.id = m.session_id`.execute(db);
    await sql`CREATE VIRTUAL TABLE messages_fts USING fts5(
      text, owner, content='messages_search_source', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
    )`.execute(db);
    // The owner term matches every row of the user once; weighing it 0 keeps bm25 ranking by the query's own terms.
    await sql`INSERT INTO messages_fts(messages_fts, rank) VALUES ('rank', 'bm25(1.0, 0.0)')`.execute(db);
    await sql`INSERT INTO messages_fts(messages_fts) VALUES ('rebuild')`.execute(db);

    await sql`CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
      INSERT INTO messages_fts(rowid, text, owner) VALUES (new.id, new.text, ${sql.raw(ownerOfSessionId("new.session_id"))});
    END`.execute(db);
    await sql`CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
      INSERT INTO messages_fts(messages_fts, rowid, text, owner)
        VALUES ('delete', old.id, old.text, ${sql.raw(ownerOfSessionId("old.session_id"))});
    END`.execute(db);
    await sql`CREATE TRIGGER messages_fts_update AFTER UPDATE OF text, session_id ON messages BEGIN
      INSERT INTO messages_fts(messages_fts, rowid, text, owner)
        VALUES ('delete', old.id, old.text, ${sql.raw(ownerOfSessionId("old.session_id"))});
      INSERT INTO messages_fts(rowid, text, owner) VALUES (new.id, new.text, ${sql.raw(ownerOfSessionId("new.session_id"))});
    END`.execute(db);
    await sql`CREATE TRIGGER messages_fts_session_owner AFTER UPDATE OF platform, user_id ON sessions BEGIN
      INSERT INTO messages_fts(messages_fts, rowid, text, owner)
        SELECT 'delete', id, text, ${sql.raw(OWNER_OF_SESSION("old"))} FROM messages WHERE session_id = old.id;
      INSERT INTO messages_fts(rowid, text, owner)
        SELECT id, text, ${sql.raw(OWNER_OF_SESSION("new"))} FROM messages WHERE session_id = new.id;
    END`.execute(db);
    await sql`CREATE TRIGGER messages_fts_session_delete BEFORE DELETE ON sessions BEGIN
      DELETE FROM messages WHERE session_id = old.id;
    END`.execute(db);
  },
};
