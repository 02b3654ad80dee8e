import { sql, type RawBuilder } from "kysely";
import { isStopWord, type TermJoin } from "../fts-query.js";
import type { SearchPage, SearchQuery } from "../search.js";
import type { StoreContext } from "../store-context.js";
import type { SearchHit } from "../types.js";
import { SEARCH_TEXT_LIMIT } from "./migrations/0011-search-folded.js";

/** ts_headline's window, about the 16 tokens of SQLite's snippet, keeping short words at its ends as SQLite does. */
const HEADLINE_OPTIONS = "StartSel=[, StopSel=], MaxWords=16, MinWords=15, ShortWord=0";
/** ts_rank's normalization 1 divides by 1 + log(length), so long messages do not win on length alone (as in bm25). */
const RANK_NORMALIZATION = 1;

/**
 * One page of full-text search on PostgreSQL, the same rules as SQLite's (../search.ts): `messages.text_search` is the
 * folded text's tsvector (migration 0011) and each word is its own phraseto_tsquery over the word folded the same
 * way, bound as a value, so nothing the user typed is tsquery syntax ("tomat*" is the word "tomat", no prefix, as a
 * quoted FTS5 term). Stop words filter but do not rank (ts_rank of the other words).
 *
 * The owner restriction is the join to the caller's sessions. The planner picks the path from the words' statistics:
 * for a common word it starts from the user's sessions (sessions_by_user, then messages_session_seq) and checks their
 * messages only; for a rare one it intersects the GIN index with them. Either way only the caller's matches are ranked.
 */
export function createPostgresSearchPage(ctx: StoreContext): SearchPage {
  return async (query: SearchQuery, words: readonly string[], join: TermJoin, limit: number): Promise<SearchHit[]> => {
    const ranking = words.filter((word) => !isStopWord(word));
    const ranked = ranking.length > 0;
    // As on SQLite: with every word required the stop words filter too; with any word, a stop word alone is no match.
    const filter = join === "all" || !ranked ? words : ranking;
    const textSearch = sql.ref("messages.text_search");
    const score = ranked ? sql<number>`ts_rank(${textSearch}, ${tsquery(ranking, join)}, ${sql.lit(RANK_NORMALIZATION)})` : sql<number>`0`;
    let page = ctx.db
      .selectFrom("sessions")
      .innerJoinLateral(
        (eb) => {
          const matches = eb
            .selectFrom("messages")
            .select(["messages.id", "messages.seq", "messages.role", "messages.created_at", score.as("score")])
            .whereRef("messages.session_id", "=", "sessions.id")
            .where(sql<boolean>`${textSearch} @@ ${tsquery(filter, join)}`);
          // Unranked, the newest matches are wanted: each session gives its last few, walking its messages backwards,
          // instead of the planner walking the whole table newest first for a user whose matches are few or old.
          // Ranked, the planner may flatten the join and pick either path (see above).
          return (ranked ? matches : matches.orderBy("messages.seq", "desc").limit(limit)).as("match");
        },
        (on) => on.onTrue(),
      )
      .select([
        "match.id as id",
        "sessions.id as sessionId",
        "sessions.key as sessionKey",
        "sessions.title as title",
        "match.seq as seq",
        "match.role as role",
        "match.created_at as createdAt",
        "match.score as score",
      ])
      .where("sessions.platform", "=", query.platform)
      .where("sessions.user_id", "=", query.userId);
    if (query.excludeSessionId !== undefined) page = page.where("sessions.id", "!=", query.excludeSessionId);
    page = ranked ? page.orderBy("score", "desc").orderBy("match.id", "desc") : page.orderBy("match.id", "desc");
    const headline = sql<string>`ts_headline('simple', search_unaccented(left(messages.text, ${sql.lit(SEARCH_TEXT_LIMIT)})),
      ${tsquery(words, join)}, ${sql.lit(HEADLINE_OPTIONS)})`;
    const rows = await ctx.exec.all(
      ctx.db
        .selectFrom(page.limit(limit).as("page"))
        // The text is read for the returned rows only, after the page is cut.
        .innerJoin("messages", "messages.id", "page.id")
        .select(["page.sessionId", "page.sessionKey", "page.title", "page.seq", "page.role", "page.createdAt", headline.as("snippet")])
        .orderBy("page.score", "desc")
        .orderBy("page.id", "desc"),
    );
    return rows.map((row) => ({ ...row, title: row.title ?? undefined }));
  };
}

/** The words as one tsquery: each folded and parsed as a phrase of its tokens, joined by && or ||. */
function tsquery(words: readonly string[], join: TermJoin): RawBuilder<unknown> {
  const terms = words.map((word) => sql`phraseto_tsquery('simple', search_folded(${word}))`);
  return sql`(${sql.join(terms, sql.raw(join === "all" ? " && " : " || "))})`;
}
