import { sql, type Kysely, type Migration } from "kysely";

/**
 * Search text as SQLite's unicode61 tokenizer (remove_diacritics 2) sees it. `search_unaccented` drops the combining
 * accents Unicode decomposes letters into ("Zürich" is found as "zurich") and recomposes the rest, so other scripts
 * (Hangul) keep their form. `search_folded` lowercases that whatever the database's LC_CTYPE: under "C", PostgreSQL
 * lowercases ASCII only, so "ТЕСТ" would never meet "тест". The index and the query words both go through
 * `search_folded`, so they cannot drift apart; snippets are cut from `search_unaccented` text, which keeps its case
 * and whose words ts_headline can still match.
 *
 * Lowercasing goes through ICU's root locale when the server has ICU, and normalization needs a UTF8 database; a
 * server without either gets the closest it can do, chosen here once, so the functions stay IMMUTABLE.
 *
 * Only the first SEARCH_TEXT_LIMIT characters are indexed: a tsvector holds at most 1 MB of distinct lexemes, and a
 * longer text of distinct tokens (a hash dump in a tool result) would otherwise make the whole append fail.
 */
export const SEARCH_TEXT_LIMIT = 200_000;

/**
 * Each message's vector also holds its session's id behind this prefix, as one lexeme without a position: a search
 * ANDs the caller's sessions into its query, so the GIN index finds their matches without reading anyone else's
 * rows (SQLite's owner token, 0008, does the same). The parser never yields a lexeme with a space, so no word of a
 * message can equal one.
 */
export const SESSION_LEXEME_PREFIX = " ";

export const searchFoldedMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    const server = await sql<{ icu: boolean; utf8: boolean }>`
      SELECT EXISTS (SELECT 1 FROM pg_collation WHERE collname = 'und-x-icu') AS icu,
             pg_encoding_to_char(encoding) = 'UTF8' AS utf8
      FROM pg_database WHERE datname = current_database()`.execute(db);
    const { icu = false, utf8 = false } = server.rows[0] ?? {};
    // U+0300–U+036F are the combining diacritical marks; the regular expression reads the \u escapes itself.
    const unaccented = utf8 ? `normalize(regexp_replace(normalize(value, NFD), '[\\u0300-\\u036f]', '', 'g'), NFC)` : "value";
    // The folded body repeats the expression instead of calling search_unaccented, which would be looked up by the
    // caller's search_path at every call.
    const folded = icu ? `lower((${unaccented}) COLLATE "und-x-icu")` : `lower(${unaccented})`;
    await createFunction(db, "search_unaccented", unaccented);
    await createFunction(db, "search_folded", folded);

    // Dropping the column drops its GIN index; both come back over the folded text and the session's lexeme.
    await sql`ALTER TABLE messages DROP COLUMN text_search`.execute(db);
    await sql`ALTER TABLE messages ADD COLUMN text_search tsvector GENERATED ALWAYS AS (
      to_tsvector('simple'::regconfig, search_folded(left(text, ${sql.lit(SEARCH_TEXT_LIMIT)})))
      || array_to_tsvector(ARRAY[${sql.lit(SESSION_LEXEME_PREFIX)} || session_id])) STORED`.execute(db);
    await db.schema.createIndex("messages_text_search").on("messages").using("gin").column("text_search").execute();
  },
};

async function createFunction(db: Kysely<unknown>, name: string, body: string): Promise<void> {
  await sql`CREATE FUNCTION ${sql.id(name)}(value text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS ${sql.lit(`SELECT ${body}`)}`.execute(db);
}
