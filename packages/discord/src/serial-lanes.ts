/**
 * Runs tasks one after another per key and different keys side by side, so the messages of one channel reach the
 * gateway in the order Discord sent them even when one of them waits for an attachment download.
 */
export class SerialLanes {
  private readonly tails = new Map<string, Promise<void>>();

  run(key: string, task: () => Promise<void>): Promise<void> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task);
    // A failed task must not stop the ones queued behind it.
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Resolves once every task started so far has finished. */
  async idle(): Promise<void> {
    while (this.tails.size > 0) await Promise.all([...this.tails.values()]);
  }
}
