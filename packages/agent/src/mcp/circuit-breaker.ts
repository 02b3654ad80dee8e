export interface CircuitBreakerOptions {
  /** Consecutive failures that open the circuit. Default 3. */
  failureThreshold?: number;
  /** How long an open circuit answers at once before one probe call is let through. Default 60 000 ms. */
  openMs?: number;
}

export type BreakerGate = { pass: true } | { pass: false; probeAt?: number; lastError: string };

/**
 * Per-server circuit breaker: after `failureThreshold` consecutive failures the server is answered "unavailable"
 * without being called, so a hung or broken server costs the model one quick error instead of a timeout per call.
 * After `openMs` exactly one call (the probe) goes through; its success closes the circuit, its failure re-opens it.
 */
export class CircuitBreaker {
  private failures = 0;
  private openedAt: number | undefined;
  private probing = false;
  private lastError = "";
  private readonly threshold: number;
  private readonly openMs: number;

  constructor(private readonly now: () => number, options: CircuitBreakerOptions = {}) {
    this.threshold = options.failureThreshold ?? 3;
    this.openMs = options.openMs ?? 60_000;
  }

  get isOpen(): boolean {
    return this.openedAt !== undefined;
  }

  /** When the next probe may go through (undefined while closed or while a probe is out). */
  get probeAt(): number | undefined {
    return this.openedAt === undefined || this.probing ? undefined : this.openedAt + this.openMs;
  }

  get failureReason(): string | undefined {
    return this.isOpen ? this.lastError : undefined;
  }

  tryPass(): BreakerGate {
    if (this.openedAt === undefined) return { pass: true };
    if (!this.probing && this.now() >= this.openedAt + this.openMs) {
      this.probing = true;
      return { pass: true };
    }
    return { pass: false, probeAt: this.probeAt, lastError: this.lastError };
  }

  recordSuccess(): void {
    this.reset();
  }

  recordFailure(reason: string): void {
    this.lastError = reason;
    this.failures += 1;
    if (this.probing || this.failures >= this.threshold) {
      this.openedAt = this.now();
      this.probing = false;
    }
  }

  /** A call that ended without telling anything about the server (the run was stopped): a probe may go again. */
  recordNeither(): void {
    this.probing = false;
  }

  reset(): void {
    this.failures = 0;
    this.openedAt = undefined;
    this.probing = false;
    this.lastError = "";
  }
}
