/** Time for the pacer: a monotonic clock in milliseconds and one-shot timers, injectable for tests. */
export interface PacerClock {
  now(): number;
  /** Calls `callback` once after `ms`; the returned function cancels it. */
  schedule(callback: () => void, ms: number): () => void;
}

/** Node fires a timer longer than this after 1 ms; a capped timer that fires early only re-checks and waits on. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** performance.now (wall-clock jumps must not stall or burst sends); timers are unref'd so waiting never holds the process open. */
export const realPacerClock: PacerClock = {
  now: () => performance.now(),
  schedule: (callback, ms) => {
    const timer = setTimeout(callback, Math.min(ms, LONGEST_TIMER_MS));
    timer.unref();
    return () => clearTimeout(timer);
  },
};
