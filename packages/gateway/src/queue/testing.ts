import type { Scheduler } from "./scheduler.js";

interface ScheduledTask {
  ms: number;
  task: () => void;
  live: boolean;
}

/** A scheduler tests drive by hand: nothing runs until the test fires it, so no test waits on real time. */
export class ManualScheduler implements Scheduler {
  private tasks: ScheduledTask[] = [];

  after(ms: number, task: () => void): () => void {
    const entry: ScheduledTask = { ms, task, live: true };
    this.tasks.push(entry);
    return () => {
      entry.live = false;
    };
  }

  /** Delays of the tasks still waiting, in the order they were scheduled. */
  waiting(): number[] {
    return this.live().map((entry) => entry.ms);
  }

  /** Runs every waiting task scheduled with exactly `ms` (all waiting tasks when omitted). */
  fire(ms?: number): number {
    const due = this.live().filter((entry) => ms === undefined || entry.ms === ms);
    for (const entry of due) {
      entry.live = false;
      entry.task();
    }
    this.tasks = this.live();
    return due.length;
  }

  private live(): ScheduledTask[] {
    return this.tasks.filter((entry) => entry.live);
  }
}

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets pending promise callbacks and I/O callbacks run. */
export async function settleCallbacks(rounds = 5): Promise<void> {
  for (let round = 0; round < rounds; round += 1) await new Promise((resolve) => setImmediate(resolve));
}
