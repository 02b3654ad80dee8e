import { sql } from "kysely";
import { ftsMatchExpression, ftsTerms, type TermJoin } from "./fts-query.js";
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

const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 50;
const SNIPPET_TOKENS = 16;

/**
 * Full-text search over one user's transcripts, best match first. Messages must contain every term; when none does,
 * any term will do, so a long question still finds the conversation that shared only some of its words.
 */
export function createSessionSearch(ctx: StoreContext): SearchSessions {
  const run = (query: SearchQuery, terms: readonly string[], join: TermJoin, limit: number): SearchHit[] => {
    let builder = ctx.db
      .selectFrom("messages_fts")
      .innerJoin("messages", "messages.id", "messages_fts.rowid")
      .innerJoin("sessions", "sessions.id", "messages.session_id")
      .select([
        "messages.session_id as sessionId",
        "sessions.key as sessionKey",
        "sessions.title as title",
        "messages.seq as seq",
        "messages.role as role",
        "messages.created_at as createdAt",
        sql<string>`snippet(messages_fts, 0, '[', ']', '…', ${sql.lit(SNIPPET_TOKENS)})`.as("snippet"),
      ])
      .where(sql<boolean>`messages_fts MATCH ${ftsMatchExpression(terms, join)}`)
      .where("sessions.platform", "=", query.platform)
      .where("sessions.user_id", "=", query.userId);
    if (query.excludeSessionId !== undefined) builder = builder.where("sessions.id", "!=", query.excludeSessionId);
    const rows = ctx.exec.all(builder.orderBy(sql`messages_fts.rank`).orderBy("messages.id", "desc").limit(limit));
    return rows.map((row) => ({ ...row, title: row.title ?? undefined }));
  };

  return async (query) => {
    const terms = ftsTerms(query.text);
    if (terms.length === 0) return [];
    const limit = Math.min(MAX_LIMIT, Math.max(1, Math.floor(query.limit ?? DEFAULT_LIMIT)));
    try {
      const hits = run(query, terms, "all", limit);
      if (hits.length > 0 || terms.length === 1) return hits;
      return run(query, terms, "any", limit);
    } catch (error) {
      if (isFtsQueryError(error)) {
        ctx.logger.warn("session search query rejected by FTS5", { error: error.message });
        return [];
      }
      throw error;
    }
  };
}

/**
 * The statement is fixed and only the MATCH expression varies, so a plain SQLITE_ERROR ("fts5: syntax error …",
 * "unterminated string") means the expression was unusable. Busy, I/O and constraint errors keep their own codes.
 */
function isFtsQueryError(error: unknown): error is Error {
  return error instanceof Error && "code" in error && error.code === "SQLITE_ERROR";
}
