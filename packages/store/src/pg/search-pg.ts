import type { SearchSessions } from "../search.js";
import type { StoreContext } from "../store-context.js";

/** Full-text search on PostgreSQL (tsvector/GIN): written in the next commit. */
export function createPostgresSessionSearch(ctx: StoreContext): SearchSessions {
  return async () => {
    ctx.logger.warn("session search is not available on PostgreSQL yet");
    return [];
  };
}
