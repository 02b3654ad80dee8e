import { RecentKeys } from "./recent-keys.js";

/**
 * Lets each key (a Slack event id, a message id) through once. A key is claimed while it is being handled and only
 * remembered as done when handling succeeded. A claim made while another is being handled waits for its outcome:
 * after a success it is refused, after a failure it gets its turn, so a retry Slack sent while a slow delivery was
 * still being handled is not lost when that delivery then fails.
 */
export class OncePerKey {
  private readonly done: RecentKeys;
  private readonly inFlight = new Map<string, { settled: Promise<void>; settle: () => void }>();

  constructor(capacity = 10_000) {
    this.done = new RecentKeys(capacity);
  }

  /** True when the caller should handle `key` now; it must then call `settle`. */
  async claim(key: string): Promise<boolean> {
    for (let running = this.inFlight.get(key); running; running = this.inFlight.get(key)) await running.settled;
    if (this.done.has(key)) return false;
    let settle = (): void => {};
    const settled = new Promise<void>((resolve) => {
      settle = resolve;
    });
    this.inFlight.set(key, { settled, settle });
    return true;
  }

  settle(key: string, succeeded: boolean): void {
    const running = this.inFlight.get(key);
    this.inFlight.delete(key);
    if (succeeded) this.done.add(key);
    running?.settle();
  }
}
