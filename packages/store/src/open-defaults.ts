/** Settings both dialects' stores open with (open-store.ts, pg/open-pg.ts). */

/** How long an operation waits for a lock held elsewhere before failing, unless the caller says otherwise. */
export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;
/** The pauses between attempts of an operation that found the database busy (busy-retry.ts). */
export const RETRY_FIRST_DELAY_MS = 2;
export const RETRY_MAX_DELAY_MS = 50;

export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
