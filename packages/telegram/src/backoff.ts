import type { ApiFailure } from "./api-errors.js";

/** How retries space out: `baseMs` before the first, doubling up to `maxMs`, spread by ±25 %. */
export interface RetrySchedule {
  baseMs: number;
  maxMs: number;
}

export const RETRY_SCHEDULE: RetrySchedule = { baseMs: 1_000, maxMs: 30_000 };
// Another instance usually goes away within a minute (a deploy overlapping the old process); polling again sooner
// only terminates the other poll, and Telegram answers the same conflict.
export const CONFLICT_SCHEDULE: RetrySchedule = { baseMs: 5_000, maxMs: 60_000 };
// A retry_after of 0 must not turn into a tight loop.
const MIN_RATE_LIMIT_WAIT_MS = 1_000;

/** Pause before retry number `attempt` (0 for the first): doubling from 1 s up to 30 s, spread by ±25 %. */
export function backoffMs(attempt: number, random: () => number, schedule: RetrySchedule = RETRY_SCHEDULE): number {
  const delay = Math.min(schedule.maxMs, schedule.baseMs * 2 ** Math.max(0, attempt));
  return Math.round(delay * (0.75 + 0.5 * random()));
}

/** Pause before retrying a failed call, the `attempt`-th failure in a row: Telegram's retry_after for a 429. */
export function retryDelayMs(failure: ApiFailure, attempt: number, random: () => number): number {
  if (failure.kind === "rate-limited") return Math.max(MIN_RATE_LIMIT_WAIT_MS, failure.retryAfterMs);
  return backoffMs(attempt, random, failure.kind === "conflict" ? CONFLICT_SCHEDULE : RETRY_SCHEDULE);
}

/** Waits `ms`, or less when `signal` aborts first; never rejects. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
