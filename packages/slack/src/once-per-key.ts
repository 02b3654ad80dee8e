import { RecentKeys } from "./recent-keys.js";

/**
 * Lets each key (a Slack event id, a message id) through once. A key is claimed while it is being handled and only
 * remembered as done when handling succeeded, so a delivery that failed can be retried by Slack, while a retry that
 * arrives during or after a successful handling is dropped.
 */
export class OncePerKey {
  private readonly done: RecentKeys;
  private readonly inFlight = new Set<string>();

  constructor(capacity = 10_000) {
    this.done = new RecentKeys(capacity);
  }

  /** True when the caller should handle `key` now; it must then call `settle`. */
  claim(key: string): boolean {
    if (this.done.has(key) || this.inFlight.has(key)) return false;
    this.inFlight.add(key);
    return true;
  }

  settle(key: string, succeeded: boolean): void {
    this.inFlight.delete(key);
    if (succeeded) this.done.add(key);
  }
}
