/** The lane a delivery belongs to: one per chat of a platform; a chat's deliveries go out one after another. */
export function chatLaneKey(delivery: { platform: string; chatId: string }): string {
  return `${delivery.platform}\u0000${delivery.chatId}`;
}

/**
 * Per-chat lanes with a bound on how many run at once. Work added to a busy lane runs after the lane's earlier work,
 * so one chat never sees its messages out of order; lanes never wait for each other.
 */
export class ChatLanes {
  private readonly lanes = new Map<string, Promise<void>>();
  private wakeWaiters: Array<() => void> = [];
  /** A wake with nobody waiting is kept for the next `settled`, so no finish or new work goes unnoticed. */
  private wokenUnseen = false;

  constructor(readonly capacity: number) {}

  /** Lanes with work right now. */
  get busy(): number {
    return this.lanes.size;
  }

  /** How many more lanes may start now. */
  get free(): number {
    return Math.max(0, this.capacity - this.lanes.size);
  }

  /** Queues `work` on the lane `key`; `work` must not reject (a lane would stop at the first rejection). */
  run(key: string, work: () => Promise<void>): void {
    const previous = this.lanes.get(key) ?? Promise.resolve();
    const next: Promise<void> = previous.then(work).finally(() => {
      if (this.lanes.get(key) === next) this.lanes.delete(key);
      this.wake();
    });
    this.lanes.set(key, next);
  }

  /** Resolves when some work finishes or `wake` is called — since the last `settled` — or at once when no lane is busy. */
  settled(): Promise<void> {
    if (this.lanes.size === 0 || this.wokenUnseen) {
      this.wokenUnseen = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.wakeWaiters.push(resolve));
  }

  /** Lets whoever waits in `settled` look again (say, new deliveries arrived). */
  wake(): void {
    if (this.wakeWaiters.length === 0) this.wokenUnseen = true;
    const waiters = this.wakeWaiters;
    this.wakeWaiters = [];
    for (const resolve of waiters) resolve();
  }

  /** Resolves when every lane is empty. */
  async idle(): Promise<void> {
    while (this.lanes.size > 0) await Promise.allSettled([...this.lanes.values()]);
  }
}
