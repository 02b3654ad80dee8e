import type { RateLimit } from "../core/adapter.js";

/** Floating-point refills land a hair under a whole token; that hair must not cost another timer round. */
const EPSILON = 1e-9;

/**
 * A token bucket: holds up to `burst` tokens, refills at `ratePerSecond`, starts full. Time comes from `now`
 * (milliseconds, monotonic), so tests drive it with a fake clock.
 *
 * `reserve` tokens (at most burst − 1) are kept back: a take needs `count + reserve` in the bucket. Reserving
 * rate × jitter keeps a sender within the limit as the receiver counts it, when each send reaches it up to that
 * jitter later than it was let go (the receiver sees early sends delayed and later ones not).
 */
export class TokenBucket {
  private tokens: number;
  private refilledAt: number;
  private readonly reserve: number;

  constructor(
    private readonly limit: RateLimit,
    private readonly now: () => number,
    reserve = 0,
  ) {
    if (!(limit.ratePerSecond > 0) || !Number.isFinite(limit.ratePerSecond)) throw new Error(`token bucket: ratePerSecond must be a positive number, got ${limit.ratePerSecond}`);
    if (!(limit.burst >= 1) || !Number.isFinite(limit.burst)) throw new Error(`token bucket: burst must be at least 1, got ${limit.burst}`);
    if (!(reserve >= 0)) throw new Error(`token bucket: reserve must be zero or more, got ${reserve}`);
    this.tokens = limit.burst;
    this.refilledAt = now();
    this.reserve = Math.min(reserve, limit.burst - 1);
  }

  /** The most tokens the bucket holds. */
  get burst(): number {
    return this.limit.burst;
  }

  /** Milliseconds until `count` tokens (beyond the reserve) are in the bucket (0: now). */
  msUntil(count = 1): number {
    this.checkCount(count);
    this.refill();
    const missing = Math.min(this.limit.burst, count + this.reserve) - this.tokens;
    if (missing <= EPSILON) return 0;
    return Math.max(1, Math.ceil((missing * 1000) / this.limit.ratePerSecond));
  }

  /** Takes `count` tokens if they are there now; false (and nothing taken) otherwise. */
  tryTake(count = 1): boolean {
    if (this.msUntil(count) > 0) return false;
    this.tokens = Math.max(0, this.tokens - count);
    return true;
  }

  /** A full bucket behaves exactly like a new one, so it can be dropped without changing any answer. */
  isFull(): boolean {
    this.refill();
    return this.tokens >= this.limit.burst - EPSILON;
  }

  private refill(): void {
    const at = this.now();
    if (at <= this.refilledAt) return;
    this.tokens = Math.min(this.limit.burst, this.tokens + ((at - this.refilledAt) * this.limit.ratePerSecond) / 1000);
    this.refilledAt = at;
  }

  private checkCount(count: number): void {
    if (!(count > 0) || count > this.limit.burst) throw new Error(`token bucket: cannot take ${count} tokens from a bucket of ${this.limit.burst}`);
  }
}
