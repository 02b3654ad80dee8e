import type { PacerClock } from "./pacer-clock.js";

interface Timer {
  at: number;
  callback: () => void;
  cancelled: boolean;
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A clock for tests: time moves only when the test advances it, firing due timers in order. */
export class ManualClock implements PacerClock {
  private at = 0;
  private timers: Timer[] = [];

  now(): number {
    return this.at;
  }

  schedule(callback: () => void, ms: number): () => void {
    const timer: Timer = { at: this.at + Math.max(0, ms), callback, cancelled: false };
    this.timers.push(timer);
    return () => {
      timer.cancelled = true;
    };
  }

  /** Timers set and not yet fired or cancelled. */
  pendingTimers(): number {
    return this.timers.filter((timer) => !timer.cancelled).length;
  }

  /** Moves time forward by `ms`, firing each timer at its time and letting promise callbacks run after each. */
  async advance(ms: number): Promise<void> {
    const end = this.at + ms;
    await settle();
    for (;;) {
      this.timers = this.timers.filter((timer) => !timer.cancelled);
      const next = this.timers.reduce<Timer | undefined>((first, timer) => (timer.at <= end && (!first || timer.at < first.at) ? timer : first), undefined);
      if (!next) break;
      this.at = Math.max(this.at, next.at);
      next.cancelled = true;
      next.callback();
      await settle();
    }
    this.at = end;
  }
}
