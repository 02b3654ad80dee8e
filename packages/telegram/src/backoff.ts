const BASE_MS = 1_000;
const MAX_MS = 30_000;

/** Pause before retry number `attempt` (0 for the first): doubling from 1 s up to 30 s, spread by ±25 %. */
export function backoffMs(attempt: number, random: () => number): number {
  const delay = Math.min(MAX_MS, BASE_MS * 2 ** Math.max(0, attempt));
  return Math.round(delay * (0.75 + 0.5 * random()));
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
