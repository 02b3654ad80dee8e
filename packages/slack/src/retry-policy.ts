import { cappedBackoffMs } from "@hermes/gateway";

/** How reconnect attempts are spaced: doubling from `baseMs` up to `maxMs`, each spread by ±25 % (jitter). */
export interface RetryPolicy {
  baseMs: number;
  maxMs: number;
  /** In [0, 1), for the jitter (default Math.random). */
  random: () => number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { baseMs: 1_000, maxMs: 60_000, random: Math.random };

/**
 * The pause after the `failures`-th failure in a row (1 for the first), never more than `maxMs` unless Slack asked
 * for a longer one (`retryAfterMs`, from a 429's Retry-After).
 */
export function retryDelayMs(failures: number, policy: RetryPolicy, retryAfterMs = 0): number {
  const backoff = cappedBackoffMs(failures, { firstMs: policy.baseMs, maxMs: policy.maxMs, jitter: "spread-within-cap" }, policy.random);
  return Math.max(backoff, retryAfterMs);
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
