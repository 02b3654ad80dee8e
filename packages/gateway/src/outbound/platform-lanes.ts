import type { PacingRules, RateLimit } from "../core/adapter.js";
import type { PacerClock } from "./pacer-clock.js";
import { TokenBucket } from "./token-bucket.js";

interface Waiter {
  resolve: () => void;
  reject: (reason: unknown) => void;
  /** Removes the abort listener once the waiter is served. */
  detach: () => void;
}

/** One chat's waiting sends, served strictly in the order they asked. */
interface Lane {
  readonly chatId: string;
  readonly waiters: Waiter[];
  cancelTimer: (() => void) | undefined;
  /** Its own buckets allow the head waiter; it waits its turn for the platform's global bucket. */
  queuedForGlobal: boolean;
}

/**
 * One platform's pacing: a bucket per chat, per group and for the whole bot, plus pauses the platform asked for.
 * A chat waits on its own timer for its own buckets and pauses, so it never holds up another chat; only for the shared
 * global bucket do chats queue, first come first served, with one timer for the whole queue (no thundering herd).
 */
export class PlatformLanes {
  private readonly lanes = new Map<string, Lane>();
  private readonly chatBuckets = new Map<string, TokenBucket>();
  private readonly groupBuckets = new Map<string, TokenBucket>();
  private readonly chatPauses = new Map<string, number>();
  private readonly global: TokenBucket | undefined;
  private readonly globalQueue: Lane[] = [];
  private cancelGlobalTimer: (() => void) | undefined;
  private pumping = false;
  private pausedUntil = 0;

  constructor(
    private readonly rules: PacingRules,
    private readonly clock: PacerClock,
    /** How much later than let go a send may reach the platform; each bucket keeps that much refill in reserve. */
    private readonly jitterMs: number,
  ) {
    this.global = rules.global ? this.newBucket(rules.global) : undefined;
  }

  acquire(chatId: string, signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const lane = this.laneOf(chatId);
      const waiter: Waiter = { resolve, reject, detach: () => undefined };
      if (signal) {
        const onAbort = (): void => this.abandon(lane, waiter, signal.reason);
        signal.addEventListener("abort", onAbort, { once: true });
        waiter.detach = () => signal.removeEventListener("abort", onAbort);
      }
      lane.waiters.push(waiter);
      if (lane.waiters.length === 1) this.schedule(lane);
    });
  }

  /**
   * Never ahead of sends already waiting, in this chat or for the global bucket, and never with the chat's last token:
   * a best-effort send (typing) that took it would make the reply that follows it wait for the next one.
   */
  tryAcquire(chatId: string): boolean {
    if ((this.lanes.get(chatId)?.waiters.length ?? 0) > 0) return false;
    if (this.localWaitMs(chatId, 2) > 0 || this.globalBlocked()) return false;
    this.takeTokens(chatId);
    return true;
  }

  /** An empty chat id pauses the whole platform. A pause only ever lengthens: an earlier timer re-checks and waits on. */
  pause(chatId: string, ms: number): void {
    if (!(ms > 0)) return;
    const until = this.clock.now() + ms;
    if (chatId === "") this.pausedUntil = Math.max(this.pausedUntil, until);
    else this.chatPauses.set(chatId, Math.max(this.chatPauses.get(chatId) ?? 0, until));
  }

  /** Drops what a new chat would get anyway: full buckets and pauses that have run out. */
  sweep(): void {
    const now = this.clock.now();
    for (const [chatId, bucket] of this.chatBuckets) if (bucket.isFull() && !this.lanes.has(chatId)) this.chatBuckets.delete(chatId);
    for (const [chatId, bucket] of this.groupBuckets) if (bucket.isFull() && !this.lanes.has(chatId)) this.groupBuckets.delete(chatId);
    for (const [chatId, until] of this.chatPauses) if (until <= now) this.chatPauses.delete(chatId);
  }

  /** How many chats this platform keeps state for (for tests of the memory bound). */
  trackedChats(): number {
    return new Set([...this.lanes.keys(), ...this.chatBuckets.keys(), ...this.groupBuckets.keys(), ...this.chatPauses.keys()]).size;
  }

  private laneOf(chatId: string): Lane {
    let lane = this.lanes.get(chatId);
    if (!lane) {
      lane = { chatId, waiters: [], cancelTimer: undefined, queuedForGlobal: false };
      this.lanes.set(chatId, lane);
    }
    return lane;
  }

  /** Serves the lane's head waiters while its buckets allow, then waits on its own timer or joins the global queue. */
  private schedule(lane: Lane): void {
    lane.cancelTimer?.();
    lane.cancelTimer = undefined;
    for (;;) {
      if (lane.queuedForGlobal) return;
      if (lane.waiters.length === 0) {
        this.lanes.delete(lane.chatId);
        return;
      }
      const wait = this.localWaitMs(lane.chatId);
      if (wait > 0) {
        lane.cancelTimer = this.clock.schedule(() => {
          lane.cancelTimer = undefined;
          this.schedule(lane);
        }, wait);
        return;
      }
      if (this.globalBlocked()) {
        lane.queuedForGlobal = true;
        this.globalQueue.push(lane);
        this.pumpGlobal();
        return;
      }
      this.grant(lane);
    }
  }

  private pumpGlobal(): void {
    if (this.pumping || !this.global) return;
    this.pumping = true;
    this.cancelGlobalTimer?.();
    this.cancelGlobalTimer = undefined;
    try {
      for (let lane = this.globalQueue[0]; lane; lane = this.globalQueue[0]) {
        // A pause that came in meanwhile sends the chat back to its own timer, out of the others' way.
        if (lane.waiters.length > 0 && this.localWaitMs(lane.chatId) === 0) {
          const wait = this.global.msUntil();
          if (wait > 0) {
            this.cancelGlobalTimer = this.clock.schedule(() => {
              this.cancelGlobalTimer = undefined;
              this.pumpGlobal();
            }, wait);
            return;
          }
          this.grant(lane);
        }
        this.globalQueue.shift();
        lane.queuedForGlobal = false;
        this.schedule(lane);
      }
    } finally {
      this.pumping = false;
    }
  }

  private grant(lane: Lane): void {
    const waiter = lane.waiters.shift();
    if (!waiter) return;
    this.takeTokens(lane.chatId);
    waiter.detach();
    waiter.resolve();
  }

  private abandon(lane: Lane, waiter: Waiter, reason: unknown): void {
    const index = lane.waiters.indexOf(waiter);
    if (index < 0) return;
    lane.waiters.splice(index, 1);
    waiter.reject(reason);
    if (index === 0) this.schedule(lane);
  }

  private globalBlocked(): boolean {
    return this.global !== undefined && (this.globalQueue.length > 0 || this.global.msUntil() > 0);
  }

  /** Until the chat's own buckets hold `tokens` (as many as they can hold, if fewer) and no pause holds it. */
  private localWaitMs(chatId: string, tokens = 1): number {
    const now = this.clock.now();
    let wait = Math.max(0, this.pausedUntil - now, (this.chatPauses.get(chatId) ?? 0) - now);
    for (const bucket of this.bucketsOf(chatId)) wait = Math.max(wait, bucket.msUntil(Math.min(tokens, bucket.burst)));
    return Math.ceil(wait);
  }

  /** Only called once every bucket of the chat has a token, so all are taken together or none. */
  private takeTokens(chatId: string): void {
    for (const bucket of this.bucketsOf(chatId)) bucket.tryTake();
    this.global?.tryTake();
  }

  private bucketsOf(chatId: string): TokenBucket[] {
    const buckets: TokenBucket[] = [];
    const { perChat, perGroup } = this.rules;
    if (perChat) buckets.push(this.bucketIn(this.chatBuckets, chatId, perChat));
    if (perGroup && this.rules.isGroup?.(chatId)) buckets.push(this.bucketIn(this.groupBuckets, chatId, perGroup));
    return buckets;
  }

  private bucketIn(buckets: Map<string, TokenBucket>, chatId: string, limit: RateLimit): TokenBucket {
    let bucket = buckets.get(chatId);
    if (!bucket) {
      bucket = this.newBucket(limit);
      buckets.set(chatId, bucket);
    }
    return bucket;
  }

  private newBucket(limit: RateLimit): TokenBucket {
    return new TokenBucket(limit, () => this.clock.now(), (limit.ratePerSecond * this.jitterMs) / 1000);
  }
}
