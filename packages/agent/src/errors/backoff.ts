export interface BackoffOptions {
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Jitter is drawn from [0, jitterRatio × delay), so several clients that failed together spread out. */
  jitterRatio?: number;
  /** Returns a number in [0, 1) like Math.random; injected so tests are deterministic. */
  random?: () => number;
}

function requireNonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) {
    throw new RangeError(`${name} must be a finite number >= 0, got ${value}`);
  }
  return value;
}

/** Delay before retry number `attempt` (1-based): exponential growth, capped, plus random jitter. */
export function jitteredBackoffMs(attempt: number, options: BackoffOptions = {}): number {
  if (!Number.isInteger(attempt) || attempt < 1) {
    throw new RangeError(`attempt must be an integer >= 1, got ${attempt}`);
  }
  const baseDelayMs = requireNonNegative("baseDelayMs", options.baseDelayMs ?? 1000);
  const maxDelayMs = requireNonNegative("maxDelayMs", options.maxDelayMs ?? 60_000);
  const jitterRatio = requireNonNegative("jitterRatio", options.jitterRatio ?? 0.5);
  const draw = (options.random ?? Math.random)();
  if (!(draw >= 0 && draw < 1)) {
    throw new RangeError(`random() must return a number in [0, 1), got ${draw}`);
  }
  const delay = Math.min(baseDelayMs * 2 ** (attempt - 1), maxDelayMs);
  return delay + delay * jitterRatio * draw;
}
