/** How reconnect attempts are spaced: doubling from `baseMs` up to `maxMs`, each spread by ±25 % (jitter). */
export interface RetryPolicy {
  baseMs: number;
  maxMs: number;
  /** In [0, 1), for the jitter (default Math.random). */
  random: () => number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { baseMs: 1_000, maxMs: 60_000, random: Math.random };

/** The pause after the `failures`-th failure in a row (1 for the first); never more than `maxMs`. */
export function retryDelayMs(failures: number, policy: RetryPolicy): number {
  const delay = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, failures - 1));
  return Math.min(policy.maxMs, Math.round(delay * (0.75 + 0.5 * policy.random())));
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

/** Resolves with true once `promise` settles, or with false after `ms` (the promise goes on in the background). */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const elapsed = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref();
  });
  const settled = promise.then(
    () => true as const,
    () => true as const,
  );
  try {
    return await Promise.race([settled, elapsed]);
  } finally {
    clearTimeout(timer);
  }
}
