import type { BusyRetryPolicy } from "./busy-retry.js";

/** Settings both dialects' stores open with (open-store.ts, pg/open-pg.ts). */

/** How long an operation waits for a lock held elsewhere before failing, unless the caller says otherwise. */
export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;
/** The pauses between attempts of an operation that found the database busy (busy-retry.ts). */
const RETRY_FIRST_DELAY_MS = 2;
const RETRY_MAX_DELAY_MS = 50;

/** The busy wait a store was opened with (`busyTimeoutMs`), as a whole number of ms. */
export function maxWaitOf(options: { busyTimeoutMs?: number }): number {
  return Math.max(0, Math.floor(options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS));
}

/** How a store's operations are tried again while the database is busy. */
export function busyRetryPolicy(maxWaitMs: number, random: () => number = Math.random): BusyRetryPolicy {
  // The retry deadline is real time, whatever clock stamps the rows.
  return { maxWaitMs, firstDelayMs: RETRY_FIRST_DELAY_MS, maxDelayMs: RETRY_MAX_DELAY_MS, random, now: Date.now };
}

export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
