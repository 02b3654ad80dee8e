/** Who is sending: limits are per person on one platform. */
export interface IntakeSender {
  readonly platform: string;
  readonly userId: string;
}

export interface IntakeLimitOptions {
  /** HERMES_RATE_LIMIT: messages per sender per minute that may start a run; absent is no limit. */
  readonly ratePerMinute?: number;
  /** HERMES_MAX_QUEUED: unanswered messages of a session beyond which new ones start no run; absent is no limit. */
  readonly maxQueued?: number;
  readonly now?: () => number;
  /** Senders remembered at once; the least recently seen are forgotten first. */
  readonly maxTrackedSenders?: number;
}

/** Why a message starts no run: its sender is over HERMES_RATE_LIMIT, or its session over HERMES_MAX_QUEUED. */
export type IntakeRefusal = "rate_limited" | "queue_full";

export type IntakeVerdict =
  | { readonly admitted: true }
  /** `notice` is what to tell the sender, absent when they were told less than a minute ago. */
  | { readonly admitted: false; readonly reason: IntakeRefusal; readonly notice?: string };

interface SenderState {
  /** When the admitted messages of the last minute arrived, oldest first (at most ratePerMinute of them). */
  admittedAt: number[];
  lastNoticeAt?: number;
}

const WINDOW_MS = 60_000;
const NOTICE_INTERVAL_MS = 60_000;
// Each entry is at most ratePerMinute timestamps, so memory stays small even at this many senders.
const DEFAULT_MAX_TRACKED_SENDERS = 10_000;
const ADMITTED: IntakeVerdict = { admitted: true };

/**
 * Decides whether a message may start an agent run: a sliding one-minute window per sender, and a cap on the
 * messages a session already has waiting. Refused messages do not count towards the window, so a sender who keeps
 * sending still gets an answer as soon as their earlier messages age out. A refused sender is told at most once a
 * minute, whatever the reason, so the limit itself cannot be used to make the bot flood a chat.
 *
 * State is in memory and per process: only the active gateway routes messages.
 */
export class IntakeLimiter {
  private readonly senders = new Map<string, SenderState>();
  private readonly now: () => number;
  private readonly maxTracked: number;

  constructor(private readonly options: IntakeLimitOptions) {
    this.now = options.now ?? Date.now;
    this.maxTracked = options.maxTrackedSenders ?? DEFAULT_MAX_TRACKED_SENDERS;
  }

  get enabled(): boolean {
    return this.options.ratePerMinute !== undefined || this.options.maxQueued !== undefined;
  }

  /** `unanswered` is how many messages the sender's session has queued or running already. */
  admit(sender: IntakeSender, unanswered: number): IntakeVerdict {
    const now = this.now();
    const state = this.stateOf(sender);
    const { maxQueued, ratePerMinute } = this.options;
    if (maxQueued !== undefined && unanswered >= maxQueued) return this.refuse(state, now, "queue_full");
    if (ratePerMinute !== undefined) {
      while (state.admittedAt.length > 0 && (state.admittedAt[0] ?? now) <= now - WINDOW_MS) state.admittedAt.shift();
      if (state.admittedAt.length >= ratePerMinute) return this.refuse(state, now, "rate_limited");
      state.admittedAt.push(now);
    }
    return ADMITTED;
  }

  private refuse(state: SenderState, now: number, reason: IntakeRefusal): IntakeVerdict {
    if (state.lastNoticeAt !== undefined && now - state.lastNoticeAt < NOTICE_INTERVAL_MS) return { admitted: false, reason };
    state.lastNoticeAt = now;
    return { admitted: false, reason, notice: this.noticeFor(reason) };
  }

  private noticeFor(reason: IntakeRefusal): string {
    return reason === "rate_limited"
      ? `You're sending messages faster than I can answer (limit ${this.options.ratePerMinute} per minute). I'll skip this one; try again in a moment.`
      : `You already have ${this.options.maxQueued} messages waiting for an answer. I'll skip this one; send it again once I've caught up.`;
  }

  /** The sender's state, moved to the back of the map so the least recently seen sender is the first one forgotten. */
  private stateOf(sender: IntakeSender): SenderState {
    const key = `${sender.platform}\u0000${sender.userId}`;
    const state = this.senders.get(key) ?? { admittedAt: [] };
    this.senders.delete(key);
    this.senders.set(key, state);
    if (this.senders.size > this.maxTracked) {
      const oldest = this.senders.keys().next().value;
      if (oldest !== undefined) this.senders.delete(oldest);
    }
    return state;
  }
}
