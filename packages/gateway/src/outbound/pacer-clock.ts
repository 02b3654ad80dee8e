/** Time for the pacer: a monotonic clock in milliseconds and one-shot timers, injectable for tests. */
export interface PacerClock {
  now(): number;
  /** Calls `callback` once after `ms`; the returned function cancels it. */
  schedule(callback: () => void, ms: number): () => void;
}

/** performance.now (wall-clock jumps must not stall or burst sends); timers are unref'd so waiting never holds the process open. */
export const realPacerClock: PacerClock = {
  now: () => performance.now(),
  schedule: (callback, ms) => {
    const timer = setTimeout(callback, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};
