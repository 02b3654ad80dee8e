import { cappedBackoffMs, type BackoffSchedule } from "@hermes/gateway";
import type { ApiFailure } from "./api-errors.js";

/** Retries double from 1 s up to 30 s, spread by ±25 % (so up to 37.5 s at the cap). */
export const RETRY_SCHEDULE: BackoffSchedule = { firstMs: 1_000, maxMs: 30_000, jitter: "spread" };
// Another instance usually goes away within a minute (a deploy overlapping the old process); polling again sooner
// only terminates the other poll, and Telegram answers the same conflict.
export const CONFLICT_SCHEDULE: BackoffSchedule = { firstMs: 5_000, maxMs: 60_000, jitter: "spread" };
// A retry_after of 0 must not turn into a tight loop.
const MIN_RATE_LIMIT_WAIT_MS = 1_000;

/** Pause before retrying a failed call, the `attempt`-th failure in a row (0 for the first): Telegram's retry_after for a 429. */
export function retryDelayMs(failure: ApiFailure, attempt: number, random: () => number): number {
  if (failure.kind === "rate-limited") return Math.max(MIN_RATE_LIMIT_WAIT_MS, failure.retryAfterMs);
  return cappedBackoffMs(attempt + 1, failure.kind === "conflict" ? CONFLICT_SCHEDULE : RETRY_SCHEDULE, random);
}
