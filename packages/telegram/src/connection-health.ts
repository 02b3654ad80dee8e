import type { Logger } from "@hermes/agent";
import type { AdapterState, AdapterStatus } from "@hermes/gateway";
import type { ApiFailure } from "./api-errors.js";
import { retryDelayMs } from "./backoff.js";
import { retryCause } from "./retry-cause.js";

export interface ConnectionHealthOptions {
  /** The gateway's `AdapterContext.reportStatus`. */
  report: (status: AdapterStatus) => void;
  logger: Logger;
  now: () => number;
  random: () => number;
  /** Aborted when the adapter stops: nothing is reported or logged as a failure after that. */
  signal: AbortSignal;
}

// A failure that goes on is logged again now and then, so the log shows it is still happening without flooding.
const WARN_EVERY = 10;
// A refused token, a second poller, or a set-up request Telegram refuses (a bad webhook URL): retrying alone will
// not fix these.
const NEEDS_THE_OPERATOR: ReadonlySet<ApiFailure["kind"]> = new Set(["unauthorized", "conflict", "rejected"]);

/**
 * The state of the adapter's connection to Telegram, shared by connecting and polling: reports each change to the
 * gateway, logs failures with their cause, and counts failures in a row so retries back off however they alternate.
 */
export class ConnectionHealth {
  private state: AdapterState | undefined;
  private failures = 0;
  private lastKind: ApiFailure["kind"] | undefined;

  constructor(private readonly options: ConnectionHealthOptions) {}

  connecting(): void {
    this.publish({ state: "connecting" });
  }

  /** Records a failed attempt: reports `retrying` with its cause and answers how long to wait before the next one. */
  failed(failure: ApiFailure, activity: string): number {
    const delayMs = retryDelayMs(failure, this.failures, this.options.random);
    this.failures += 1;
    const cause = retryCause(failure);
    this.publish({ state: "retrying", error: cause, retryAt: this.options.now() + delayMs });
    if (!this.options.signal.aborted) this.log(failure, `${activity}; retrying`, { error: cause, failures: this.failures, retryInMs: delayMs });
    this.lastKind = failure.kind;
    return delayMs;
  }

  /** Records a successful attempt: reports `connected` unless it already was. */
  succeeded(): void {
    if (this.state === "connected") return;
    if (this.failures > 0) this.options.logger.info("Telegram connection recovered", { failures: this.failures });
    this.failures = 0;
    this.lastKind = undefined;
    this.publish({ state: "connected" });
  }

  /** The adapter cannot go on until the operator changes its settings. */
  failedForGood(error: string): void {
    this.publish({ state: "failed", error });
  }

  private log(failure: ApiFailure, message: string, fields: Record<string, unknown>): void {
    const { logger } = this.options;
    if (failure.kind !== this.lastKind) {
      if (NEEDS_THE_OPERATOR.has(failure.kind)) logger.error(message, fields);
      else logger.warn(message, fields);
    } else if (this.failures % WARN_EVERY === 0) {
      logger.warn(message, fields);
    } else {
      logger.debug(message, fields);
    }
  }

  private publish(status: AdapterStatus): void {
    if (this.options.signal.aborted) return;
    this.state = status.state;
    this.options.report(status);
  }
}
