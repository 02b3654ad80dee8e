import { sql } from "kysely";
import { ftsTerm, ownedMatchExpression, rankingTerms, searchOwnerToken, searchWords, type TermJoin } from "./fts-query.js";
import { createPostgresSearchPage } from "./pg/search-pg.js";
import type { StoreContext } from "./store-context.js";
import type { SearchHit } from "./types.js";

export interface SearchQuery {
  /** Free text as a person or the model typed it; never FTS5 syntax. */
  text: string;
  platform: string;
  userId: string;
  excludeSessionId?: string;
  limit?: number;
}

export type SearchSessions = (query: SearchQuery) => Promise<SearchHit[]>;

/** One dialect's statement: up to `limit` hits for the words (searchWords), all of them or any, best first. */
export type SearchPage = (query: SearchQuery, words: readonly string[], join: TermJoin, limit: number) => Promise<SearchHit[]>;

export const DEFAULT_SEARCH_LIMIT = 10;
export const MAX_SEARCH_LIMIT = 50;
const SNIPPET_TOKENS = 16;

/**
 * Full-text search over one user's transcripts, best match first. Messages must contain every term; when none does,
 * any term will do, so a long question still finds the conversation that shared only some of its words.
 *
 * Only the user's rows are matched (the index's owner token, migration 0008) and the join to their sessions checks
 * platform and user again, so the token is never the only thing between one user's history and another's. Stop
 * words filter but do not rank (see rankingTerms); a query of stop words only lists the newest matches first. The
 * snippet marks every term and is built for the returned rows only. PostgreSQL follows the same rules with its own
 * statement (pg/search-pg.ts).
 */
export function createSessionSearch(ctx: StoreContext): SearchSessions {
  const run = ctx.exec.dialect === "postgres" ? createPostgresSearchPage(ctx) : createSqliteSearchPage(ctx);
  return async (query) => {
    const words = searchWords(query.text);
    if (words.length === 0) return [];
    const limit = Math.min(MAX_SEARCH_LIMIT, Math.max(1, Math.floor(query.limit ?? DEFAULT_SEARCH_LIMIT)));
    try {
      const hits = await run(query, words, "all", limit);
      if (hits.length > 0 || words.length === 1) return hits;
      return await run(query, words, "any", limit);
    } catch (error) {
      if (isFtsQueryError(error)) {
        ctx.logger.warn("session search query rejected by FTS5", { error: error.message });
        return [];
      }
      throw error;
    }
  };
}

function createSqliteSearchPage(ctx: StoreContext): SearchPage {
  return async (query, words, join, limit) => {
    const terms = words.map(ftsTerm);
    const owner = searchOwnerToken(query.platform, query.userId);
    const matching = ownedMatchExpression(owner, terms, join);
    const ranking = rankingTerms(terms);
    const ranked = ranking.length > 0;
    let page = ctx.db
      .selectFrom("messages_fts")
      .innerJoin("messages", "messages.id", "messages_fts.rowid")
      .innerJoin("sessions", "sessions.id", "messages.session_id")
      .select([
        "messages.id as id",
        "messages.session_id as sessionId",
        "sessions.key as sessionKey",
        "sessions.title as title",
        "messages.seq as seq",
        "messages.role as role",
        "messages.created_at as createdAt",
        (ranked ? sql<number>`messages_fts.rank` : sql<number>`0`).as("score"),
      ])
      .where(sql<boolean>`messages_fts MATCH ${ranked ? ownedMatchExpression(owner, ranking, join) : matching}`)
      .where("sessions.platform", "=", query.platform)
      .where("sessions.user_id", "=", query.userId);
    // The unary + keeps SQLite from handing the IN list to FTS5 as one rowid lookup (and one bm25 set-up) per row.
    if (join === "all" && ranked && ranking.length < terms.length) {
      page = page.where(sql<boolean>`+messages.id IN (SELECT rowid FROM messages_fts(${matching}))`);
    }
    if (query.excludeSessionId !== undefined) page = page.where("sessions.id", "!=", query.excludeSessionId);
    page = ranked ? page.orderBy(sql`messages_fts.rank`).orderBy("messages.id", "desc") : page.orderBy("messages_fts.rowid", "desc");
    const rows = await ctx.exec.all(
      ctx.db
        .selectFrom(page.limit(limit).as("page"))
        .select(["sessionId", "sessionKey", "title", "seq", "role", "createdAt"])
        .select(
          sql<string>`(SELECT snippet(messages_fts, 0, '[', ']', '…', ${sql.lit(SNIPPET_TOKENS)}) FROM messages_fts
            WHERE messages_fts MATCH ${matching} AND messages_fts.rowid = page.id)`.as("snippet"),
        )
        .orderBy("score")
        .orderBy("id", "desc"),
    );
    return rows.map((row) => ({ ...row, title: row.title ?? undefined }));
  };
}

/**
 * The statement is fixed and only the MATCH expression varies, so a plain SQLITE_ERROR ("fts5: syntax error …",
 * "unterminated string") means the expression was unusable. Busy, I/O and constraint errors keep their own codes.
 */
function isFtsQueryError(error: unknown): error is Error {
  return error instanceof Error && "code" in error && error.code === "SQLITE_ERROR";
}
