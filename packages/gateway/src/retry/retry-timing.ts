/** Waits `ms`, or less when `signal` aborts first; never rejects. */
export type AbortableSleep = (ms: number, signal: AbortSignal) => Promise<void>;

/** Waits `ms`, or less when `signal` aborts first; never rejects, and leaves no timer or listener behind. */
export const abortableSleep: AbortableSleep = (ms, signal) => {
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
};

/**
 * How a pause is spread around its step (the step doubles from `firstMs` and stops at `maxMs`), so that many clients
 * that failed at the same moment do not all retry in the same second:
 * - `"spread"`: uniform in [0.75 × step, 1.25 × step], so at the cap up to a quarter above `maxMs`;
 * - `"spread-within-cap"`: the same, then clipped to `maxMs` (at the cap: [0.75 × maxMs, maxMs]);
 * - `"half-random"`: half the step fixed, half random, uniform in [0.5 × step, step] (never above `maxMs`).
 */
export type BackoffJitter = "spread" | "spread-within-cap" | "half-random";

/** A capped exponential backoff: `firstMs` after the first failure, doubling with each further one up to `maxMs`. */
export interface BackoffSchedule {
  firstMs: number;
  maxMs: number;
  jitter: BackoffJitter;
}

/**
 * The pause after `failures` failures in a row (1 for the first; less counts as 1), rounded to whole milliseconds.
 * `random` answers in [0, 1), as Math.random does; it is injected so tests can pin the jitter.
 */
export function cappedBackoffMs(failures: number, schedule: BackoffSchedule, random: () => number): number {
  const step = Math.min(schedule.maxMs, schedule.firstMs * 2 ** Math.max(0, failures - 1));
  switch (schedule.jitter) {
    case "spread":
      return Math.round(step * (0.75 + 0.5 * random()));
    case "spread-within-cap":
      return Math.min(schedule.maxMs, Math.round(step * (0.75 + 0.5 * random())));
    case "half-random":
      return Math.round(step / 2 + (random() * step) / 2);
  }
}
