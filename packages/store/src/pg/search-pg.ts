import { sql, type RawBuilder } from "kysely";
import { isStopWord, type TermJoin } from "../fts-query.js";
import type { SearchPage, SearchQuery } from "../search.js";
import type { StoreContext } from "../store-context.js";
import type { SearchHit } from "../types.js";
import { SEARCH_TEXT_LIMIT, SESSION_LEXEME_PREFIX } from "./migrations/0011-search-folded.js";

/** ts_headline's window, about the 16 tokens of SQLite's snippet, keeping short words at its ends as SQLite does. */
const HEADLINE_OPTIONS = "StartSel=[, StopSel=], MaxWords=16, MinWords=15, ShortWord=0";
/** ts_rank's normalization 1 divides by 1 + log(length), so long messages do not win on length alone (as in bm25). */
const RANK_NORMALIZATION = 1;

/** Past this many sessions of the caller, their ids make too long a query: their messages are read one by one. */
const MAX_SESSION_TERMS = 500;

/**
 * One page of full-text search on PostgreSQL, the same rules as SQLite's (../search.ts): `messages.text_search` is the
 * folded text's tsvector (migration 0011) and each word is its own phraseto_tsquery over the word folded the same
 * way, bound as a value, so nothing the user typed is tsquery syntax ("tomat*" is the word "tomat", no prefix, as a
 * quoted FTS5 term). Stop words filter but do not rank (ts_rank of the other words).
 *
 * Only the caller's rows are read: their sessions are looked up first (sessions_by_user) and their ids, as the
 * session lexemes of 0011, are ANDed into the query, so the GIN index intersects the caller's few entries with the
 * words' (skipping through a common word's long list) and every user's matches are never gathered, let alone
 * ranked. The join to the caller's sessions checks platform and user again, so the lexemes are never the only thing
 * between one user's history and another's. Unranked (stop words only), the newest matches are wanted: each session
 * gives its last few, walking its messages backwards.
 */
export function createPostgresSearchPage(ctx: StoreContext): SearchPage {
  return async (query: SearchQuery, words: readonly string[], join: TermJoin, limit: number): Promise<SearchHit[]> => {
    let owned = ctx.db.selectFrom("sessions").select("id").where("platform", "=", query.platform).where("user_id", "=", query.userId);
    if (query.excludeSessionId !== undefined) owned = owned.where("id", "!=", query.excludeSessionId);
    const sessions = await ctx.exec.all(owned.limit(MAX_SESSION_TERMS + 1));
    if (sessions.length === 0) return [];

    const ranking = words.filter((word) => !isStopWord(word));
    const ranked = ranking.length > 0;
    // As on SQLite: with every word required the stop words filter too; with any word, a stop word alone is no match.
    const filter = tsquery(join === "all" || !ranked ? words : ranking, join);
    const textSearch = sql.ref("messages.text_search");
    const score = ranked ? sql<number>`ts_rank(${textSearch}, ${tsquery(ranking, join)}, ${sql.lit(RANK_NORMALIZATION)})` : sql<number>`0`;
    const columns = [
      "match.id as id",
      "sessions.id as sessionId",
      "sessions.key as sessionKey",
      "sessions.title as title",
      "match.seq as seq",
      "match.role as role",
      "match.created_at as createdAt",
      "match.score as score",
    ] as const;
    const ownedBy = [sql`sessions.platform = ${query.platform}`, sql`sessions.user_id = ${query.userId}`];
    if (query.excludeSessionId !== undefined) ownedBy.push(sql`sessions.id <> ${query.excludeSessionId}`);
    const owner = sql<boolean>`${sql.join(ownedBy, sql` AND `)}`;
    const order = ranked ? sql`match.score DESC, match.id DESC` : sql`match.id DESC`;

    // The caller's matches through the index, gathered once: left to itself, the planner runs the same index scan
    // again for every session of the caller.
    const throughIndex = ctx.db
      .with(
        (cte) => cte("match").materialized(),
        (db) =>
          db
            .selectFrom("messages")
            .select(["messages.id", "messages.session_id", "messages.seq", "messages.role", "messages.created_at", score.as("score")])
            // A filter without lexemes (a word too long to index) must match nothing, not stand aside for the sessions.
            .where(sql<boolean>`${textSearch} @@ (CASE WHEN numnode(${filter}) > 0
              THEN ${sessionsQuery(sessions.map((session) => session.id))}::tsquery && ${filter} END)`),
      )
      .selectFrom("match")
      .innerJoin("sessions", "sessions.id", "match.session_id")
      .select(columns)
      .where(owner)
      .orderBy(order)
      .limit(limit);
    // Session by session, reading the caller's messages (ts_match_vq is what @@ calls, written so the planner keeps to
    // them); unranked, each session gives its newest few, walking its messages backwards.
    const bySession = ctx.db
      .selectFrom("sessions")
      .innerJoinLateral(
        (eb) => {
          const matches = eb
            .selectFrom("messages")
            .select(["messages.id", "messages.seq", "messages.role", "messages.created_at", score.as("score")])
            .whereRef("messages.session_id", "=", "sessions.id")
            .where(sql<boolean>`ts_match_vq(${textSearch}, ${filter})`);
          return (ranked ? matches : matches.orderBy("messages.seq", "desc").limit(limit)).as("match");
        },
        (on) => on.onTrue(),
      )
      .select(columns)
      .where(owner)
      .orderBy(order)
      .limit(limit);
    const page = (ranked && sessions.length <= MAX_SESSION_TERMS ? throughIndex : bySession).as("page");
    const headline = sql<string>`ts_headline('simple', search_unaccented(left(messages.text, ${sql.lit(SEARCH_TEXT_LIMIT)})),
      ${tsquery(words, join)}, ${sql.lit(HEADLINE_OPTIONS)})`;
    const rows = await ctx.exec.all(
      ctx.db
        .selectFrom(page)
        // The text is read for the returned rows only, after the page is cut.
        .innerJoin("messages", "messages.id", "page.id")
        .select(["page.sessionId", "page.sessionKey", "page.title", "page.seq", "page.role", "page.createdAt", headline.as("snippet")])
        .orderBy("page.score", "desc")
        .orderBy("page.id", "desc"),
    );
    return rows.map((row) => ({ ...row, title: row.title ?? undefined }));
  };
}

/**
 * Any of these sessions, as tsquery text of their lexemes (0011): each quoted, quotes doubled and backslashes
 * escaped, so an id is only ever a lexeme. Bound as one value and cast, so the planner sees a constant.
 */
function sessionsQuery(sessionIds: readonly string[]): string {
  const escaped = (id: string): string => `${SESSION_LEXEME_PREFIX}${id}`.replaceAll("\\", "\\\\").replaceAll("'", "''");
  return sessionIds.map((id) => `'${escaped(id)}'`).join(" | ");
}

/** The words as one tsquery: each folded and parsed as a phrase of its tokens, joined by && or ||. */
function tsquery(words: readonly string[], join: TermJoin): RawBuilder<unknown> {
  const terms = words.map((word) => sql`phraseto_tsquery('simple', search_folded(${word}))`);
  return sql`(${sql.join(terms, sql.raw(join === "all" ? " && " : " || "))})`;
}
