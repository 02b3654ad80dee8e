import type { Update } from "grammy/types";

interface Poll {
  limit: number;
  allowed: readonly string[] | undefined;
  resolve: (updates: Update[]) => void;
  timer: NodeJS.Timeout | undefined;
}

interface Confirmation {
  updateId: number;
  resolve: () => void;
}

/**
 * Telegram's update store with getUpdates semantics: updates wait until a call passes an `offset` above their id
 * (which confirms them); a call with nothing to return is held open until an update arrives or `timeout` seconds pass.
 * `replay` re-sends an update regardless of offsets, as Telegram does when a confirmation is lost.
 */
export class UpdateQueue {
  private pending: Update[] = [];
  private replays: Update[] = [];
  private confirmedBelow = 0;
  private handedOutReplays: Update[] = [];
  private nextId = 1000;
  private polls = new Set<Poll>();
  private confirmations: Confirmation[] = [];
  private pollWaiters: Array<() => void> = [];

  push(update: Omit<Update, "update_id"> & { update_id?: number }): Update {
    const full = { ...update, update_id: update.update_id ?? this.nextId++ } as Update;
    this.nextId = Math.max(this.nextId, full.update_id + 1);
    this.pending.push(full);
    this.wake();
    return full;
  }

  replay(update: Update): void {
    this.replays.push(update);
    this.wake();
  }

  /** Answers a getUpdates call, now or once something arrives (or `timeoutSeconds` pass). */
  take(offset: number | undefined, limit: number, timeoutSeconds: number, allowed: readonly string[] | undefined, signal?: AbortSignal): Promise<Update[]> {
    if (offset !== undefined && offset > 0) this.confirm(offset);
    // What was handed out before and is still unconfirmed is handed out again.
    this.replays.unshift(...this.handedOutReplays);
    this.handedOutReplays = [];
    const ready = this.collect(limit, allowed);
    if (ready.length > 0 || timeoutSeconds <= 0 || signal?.aborted) return Promise.resolve(ready);
    return new Promise((resolve) => {
      const poll: Poll = { limit, allowed, resolve, timer: undefined };
      poll.timer = setTimeout(() => this.finish(poll, []), timeoutSeconds * 1000);
      poll.timer.unref();
      this.polls.add(poll);
      for (const waiter of this.pollWaiters.splice(0)) waiter();
      // A held call whose client went away must not swallow the next update.
      signal?.addEventListener("abort", () => this.finish(poll, []), { once: true });
    });
  }

  /** Resolves once the update was handed out and a later call confirmed it. */
  waitForConfirmation(updateId: number): Promise<void> {
    if (!this.isOutstanding(updateId)) return Promise.resolve();
    return new Promise((resolve) => this.confirmations.push({ updateId, resolve }));
  }

  /** The highest offset a getUpdates call has passed: every update below it is confirmed. */
  confirmedOffset(): number {
    return this.confirmedBelow;
  }

  /** Resolves once a getUpdates call is held open, waiting for updates. */
  waitForHeldPoll(): Promise<void> {
    if (this.polls.size > 0) return Promise.resolve();
    return new Promise((resolve) => this.pollWaiters.push(resolve));
  }

  closeAll(): void {
    for (const poll of [...this.polls]) this.finish(poll, []);
  }

  private confirm(offset: number): void {
    this.confirmedBelow = Math.max(this.confirmedBelow, offset);
    this.pending = this.pending.filter((update) => update.update_id >= offset);
    this.handedOutReplays = this.handedOutReplays.filter((update) => update.update_id >= offset);
    this.confirmations = this.confirmations.filter((waiter) => {
      if (this.isOutstanding(waiter.updateId)) return true;
      waiter.resolve();
      return false;
    });
  }

  private isOutstanding(updateId: number): boolean {
    return (
      this.pending.some((u) => u.update_id === updateId) ||
      this.replays.some((u) => u.update_id === updateId) ||
      this.handedOutReplays.some((u) => u.update_id === updateId)
    );
  }

  private collect(limit: number, allowed: readonly string[] | undefined): Update[] {
    // Telegram never delivers update types the bot did not ask for.
    if (allowed && allowed.length > 0) this.pending = this.pending.filter((update) => allowed.includes(updateType(update)));
    const replays = this.replays.splice(0, limit);
    this.handedOutReplays.push(...replays);
    return [...replays, ...this.pending.slice(0, Math.max(0, limit - replays.length))];
  }

  private wake(): void {
    for (const poll of [...this.polls]) {
      const ready = this.collect(poll.limit, poll.allowed);
      if (ready.length > 0) this.finish(poll, ready);
    }
  }

  private finish(poll: Poll, updates: Update[]): void {
    if (!this.polls.delete(poll)) return;
    if (poll.timer) clearTimeout(poll.timer);
    poll.resolve(updates);
  }
}

export function updateType(update: Update): string {
  return Object.keys(update).find((key) => key !== "update_id") ?? "unknown";
}
