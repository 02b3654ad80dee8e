import { randomUUID } from "node:crypto";
import os from "node:os";
import type { Logger } from "@hermes/agent";
import type { PlatformAdapter } from "../core/adapter.js";
import { FailureStreak } from "../logging/failure-streak.js";
import { ChatLanes, chatLaneKey } from "./chat-lanes.js";
import { deliveryRetryDelayMs, sendDelivery, type DeliveryAttempt, type DeliveryRules } from "./deliver-row.js";
import { tracedDeliveryAttempt } from "./delivery-span.js";
import type { DeliveryOutcome, DeliveryRecordLike, DeliveryStoreLike, FlushSummary, InboundTraceStoreLike, StreamedRepliesLike } from "./delivery-types.js";
import { UNPACED, type SendPacer } from "./pacer-types.js";
import { realPacerClock } from "./pacer-clock.js";

export interface DeliveryServiceOptions {
  store: DeliveryStoreLike;
  /** The platforms this process sends for: it claims only their rows and never touches other platforms' rows. */
  adapters: ReadonlyMap<string, PlatformAdapter>;
  logger: Logger;
  /** Names this process in the claims it takes (default: host, pid and a random suffix, unique per instance). */
  owner?: string;
  /** Paces every send to the platform's limits (default: no pacing). */
  pacer?: SendPacer;
  /** Sends per part while the platform fails with retryable errors (default 4). */
  maxAttempts?: number;
  /** Failed attempts (not counting rate-limit deferrals) after which a delivery is given up (default 5). */
  maxDeliveryAttempts?: number;
  /** A delivery still unsent this long after it was written is given up, however it failed (default 1 hour). */
  maxDeliveryAgeMs?: number;
  /** How long a claim holds without renewal; a crashed process's rows are taken over after it (default 60 s). */
  leaseMs?: number;
  /** Chats served at the same time (default 16); one chat's deliveries always go out one after another. */
  chatConcurrency?: number;
  /** Pause between retries of one part (default: a real timer). */
  sleep?: (ms: number) => Promise<void>;
  /** In [0, 1), for backoff jitter (default Math.random). */
  random?: () => number;
  /** The clock that deferrals and retry times are set by; the store's clock decides when they are due (default Date.now). */
  now?: () => number;
  /** Runs `callback` after `ms`; returns a cancel function (default: an unref'd setTimeout). */
  schedule?: (callback: () => void, ms: number) => () => void;
  onDelivered?: (delivery: DeliveryRecordLike, outcome: DeliveryOutcome) => void;
  /** Called when the platform rate-limited a send (429) and the delivery was deferred to wait out its retry_after. */
  onDeferred?: (delivery: DeliveryRecordLike) => void;
  /** The inbound messages, whose saved trace context each reply's delivery joins; without it each starts its own. */
  inbound?: InboundTraceStoreLike;
  /** Replies streamed by message edits: their delivery edits the streamed messages into the answer (never a second copy). */
  streams?: StreamedRepliesLike;
}

// A store that never empties (a bug) must not keep one flush claiming by itself forever; polls and new replies go on.
const MAX_CLAIMS_PER_FLUSH = 1_000;
const DEFAULT_MAX_AGE_MS = 60 * 60_000;
const DEFAULT_LEASE_MS = 60_000;

const realSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
/**
 * Sends pending deliveries of its platforms through their adapters: chunked to each platform's limit, formatted,
 * paced, retried, and announced in the chat when a reply is lost. Each chat is a lane of its own: a chat waiting out a
 * rate limit (its row deferred in the store), retrying or sending slowly never holds back another chat. Rows are
 * claimed in the store first, so two processes never send the same one, and each sent part is recorded, so a restart
 * resumes at the first unsent part.
 */
export class DeliveryService {
  readonly owner: string;
  private readonly platforms: string[];
  private readonly rules: DeliveryRules;
  private readonly lanes: ChatLanes;
  private readonly schedule: (callback: () => void, ms: number) => () => void;
  private readonly now: () => number;
  /** Parts sent per delivery whose sent mark could not be written, so the next flush does not send them again. */
  private readonly unsettled = new Map<number, { delivery: DeliveryRecordLike; partsSent: number }>();
  /** Deliveries queued on or running in a lane of this service. */
  private readonly handling = new Set<number>();
  private running: Promise<FlushSummary> | null = null;
  private newWork = false;
  private polling = false;
  /** A poll chain of an earlier start() that ends after a stop() and a new start() must not schedule beside the new one. */
  private pollGeneration = 0;
  private cancelPoll: (() => void) | null = null;
  private stopping = new AbortController();
  private readonly claimFailures: FailureStreak;
  private readonly dueReadFailures: FailureStreak;

  constructor(private readonly options: DeliveryServiceOptions) {
    this.owner = options.owner ?? `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.platforms = [...options.adapters.keys()];
    this.now = options.now ?? Date.now;
    this.schedule = options.schedule ?? realPacerClock.schedule;
    this.lanes = new ChatLanes(Math.max(1, options.chatConcurrency ?? 16));
    this.rules = {
      owner: this.owner,
      store: options.store,
      logger: options.logger,
      pacer: options.pacer ?? UNPACED,
      retry: { maxAttempts: Math.max(1, options.maxAttempts ?? 4), sleep: options.sleep ?? realSleep, random: options.random ?? Math.random },
      maxDeliveryAttempts: Math.max(1, options.maxDeliveryAttempts ?? 5),
      maxDeliveryAgeMs: Math.max(0, options.maxDeliveryAgeMs ?? DEFAULT_MAX_AGE_MS),
      leaseMs: Math.max(1, options.leaseMs ?? DEFAULT_LEASE_MS),
      now: this.now,
      retryAt: (attempts) => this.now() + deliveryRetryDelayMs(attempts, options.random ?? Math.random),
      signal: this.stopping.signal,
    };
    if (options.streams) this.rules.streams = options.streams;
    this.claimFailures = new FailureStreak(options.logger, { failed: "could not claim pending deliveries", recovered: "claiming pending deliveries works again", level: "error" }, this.now);
    this.dueReadFailures = new FailureStreak(options.logger, { failed: "could not read when the next deferred delivery is due", recovered: "reading when deferred deliveries are due works again", level: "warn" }, this.now);
  }

  /**
   * Sends what is due now; resolves when every lane is empty or waiting (deferred) in the store. A call during a flush
   * joins it: the flush looks for new deliveries again before it ends.
   */
  flush(): Promise<FlushSummary> {
    if (this.running) {
      this.newWork = true;
      this.lanes.wake();
      return this.running;
    }
    const flush = this.drain().finally(() => {
      if (this.running === flush) this.running = null;
    });
    this.running = flush;
    return flush;
  }

  /**
   * Flushes now and then every `pollMs` after the previous flush ends, sooner when a deferred delivery is due. A flush
   * still running after `pollMs` (one chat's slow send) is joined by the next tick rather than waited for, so rows
   * that fall due meanwhile (another chat's deferred reply, one written by another process) still go out.
   */
  start(pollMs = 1000): void {
    if (this.polling) return;
    this.polling = true;
    const generation = ++this.pollGeneration;
    void this.logOtherPlatformsPending();
    const polling = (): boolean => this.polling && this.pollGeneration === generation;
    const tick = (): void => {
      let cancelWait: () => void = () => undefined;
      const waited = new Promise<void>((resolve) => {
        cancelWait = this.schedule(resolve, pollMs);
      });
      this.cancelPoll = cancelWait;
      const flushed = this.flush().then(
        () => cancelWait(),
        (error: unknown) => {
          cancelWait();
          this.options.logger.error("delivery flush failed", { error });
        },
      );
      void Promise.race([flushed, waited]).then(async () => {
        const delayMs = await this.nextWakeMs(pollMs);
        if (polling()) this.cancelPoll = this.schedule(tick, delayMs);
      });
    };
    tick();
  }

  /**
   * Stops polling, waits for the flush in progress (pacer waits are cut short), marks what was sent but not yet marked,
   * and gives up this process's claims.
   */
  async stop(): Promise<void> {
    this.polling = false;
    this.cancelPoll?.();
    this.cancelPoll = null;
    this.stopping.abort(new Error("the delivery service is stopping"));
    await this.running?.catch(() => undefined);
    await this.lanes.idle();
    // Sent but unmarked: marking them sends nothing, and a row left pending would be sent again by the next process.
    if (this.unsettled.size > 0) await this.flush().catch(() => undefined);
    try {
      await this.options.store.releaseClaims(this.owner);
    } catch (error) {
      this.options.logger.warn("could not release delivery claims; other processes take them over when their leases end", { error });
    }
    this.stopping = new AbortController();
    this.rules.signal = this.stopping.signal;
  }

  private async drain(): Promise<FlushSummary> {
    const summary: FlushSummary = { sent: 0, failed: 0 };
    const count = (attempt: DeliveryAttempt): void => {
      if (attempt === "sent") summary.sent += 1;
      if (attempt === "failed") summary.failed += 1;
    };
    // Sent but unmarked: marked again at the start and whenever a flush is asked for (a poll), not only when this
    // flush ends, which one slow chat can put off past the row's lease.
    const send = (delivery: DeliveryRecordLike, partsSent: number): void => {
      this.handling.add(delivery.id);
      this.lanes.run(chatLaneKey(delivery), async () => {
        try {
          count(await this.deliverTraced(delivery, partsSent));
        } finally {
          this.handling.delete(delivery.id);
        }
      });
    };
    const settleUnsettled = (): void => {
      for (const [id, held] of this.unsettled) {
        this.unsettled.delete(id);
        send(held.delivery, held.partsSent);
      }
    };
    settleUnsettled();
    let claimed = 0;
    for (;;) {
      const asked = this.newWork;
      this.newWork = false;
      if (asked) settleUnsettled();
      let found = 0;
      // The bound only stops a flush from feeding itself forever: past it, a flush asked for from outside (a poll, a new
      // reply) still claims, or one slow lane would hold every other chat back until it ends.
      if (this.lanes.free > 0 && (claimed < MAX_CLAIMS_PER_FLUSH || asked) && !this.rules.signal.aborted) {
        const rows = await this.claim(claimed < MAX_CLAIMS_PER_FLUSH ? Math.min(this.lanes.free, MAX_CLAIMS_PER_FLUSH - claimed) : this.lanes.free);
        found = rows.length;
        claimed += found;
        for (const row of rows) {
          // Our own row whose lease ran out while we still handle it: claiming refreshed the lease, the handler finishes it.
          if (this.handling.has(row.id) || this.unsettled.has(row.id)) continue;
          send(row, row.partsSent);
        }
      }
      if (this.lanes.busy === 0 && found === 0 && !this.newWork) return summary;
      // A flush asked for while this one was claiming: look again now rather than after some lane finishes.
      if (this.newWork) continue;
      await this.lanes.settled();
    }
  }

  private async claim(limit: number): Promise<DeliveryRecordLike[]> {
    try {
      const rows = await this.options.store.claim({ owner: this.owner, platforms: this.platforms, limit, leaseMs: this.rules.leaseMs });
      this.claimFailures.succeeded();
      return rows;
    } catch (error) {
      this.claimFailures.failed({ error });
      return [];
    }
  }

  /** Until the next poll, or sooner when a deferred delivery becomes due. */
  private async nextWakeMs(pollMs: number): Promise<number> {
    try {
      const due = await this.options.store.nextAttemptAt(this.platforms);
      this.dueReadFailures.succeeded();
      return due === undefined ? pollMs : Math.min(pollMs, Math.max(0, due - this.now()));
    } catch (error) {
      this.dueReadFailures.failed({ error });
      return pollMs;
    }
  }

  private async logOtherPlatformsPending(): Promise<void> {
    try {
      const byPlatform = await this.options.store.countPendingByPlatform();
      const others = Object.fromEntries(Object.entries(byPlatform).filter(([platform]) => !this.options.adapters.has(platform)));
      const total = Object.values(others).reduce((sum, n) => sum + n, 0);
      if (total > 0) this.options.logger.info("pending deliveries for platforms not run here are left to the process that runs them", { pending: total, platforms: others });
    } catch (error) {
      this.options.logger.warn("could not count pending deliveries per platform", { error });
    }
  }

  private deliverTraced(delivery: DeliveryRecordLike, partsSent: number): Promise<DeliveryAttempt> {
    return tracedDeliveryAttempt(delivery, partsSent, this.options, () => this.deliver(delivery, partsSent));
  }

  private async deliver(delivery: DeliveryRecordLike, partsSent: number): Promise<DeliveryAttempt> {
    const adapter = this.options.adapters.get(delivery.platform);
    // Unreachable: only this process's platforms are claimed. Leave the row to its lease rather than fail it.
    if (!adapter) return "pending";
    const result = await sendDelivery(this.rules, adapter, delivery, partsSent);
    if (result.attempt === "unsettled") {
      this.unsettled.set(delivery.id, { delivery, partsSent: result.partsSent });
      return "pending";
    }
    const attempt = result.attempt;
    if (attempt === "sent" || attempt === "failed") this.report(delivery, () => this.options.onDelivered?.(delivery, attempt));
    if (attempt === "deferred") this.report(delivery, () => this.options.onDeferred?.(delivery));
    return attempt;
  }

  /** A callback that throws (a bug in the caller) must not cost the delivery its bookkeeping. */
  private report(delivery: DeliveryRecordLike, callback: () => void): void {
    try {
      callback();
    } catch (error) {
      this.options.logger.error("delivery callback threw", { deliveryId: delivery.id, error });
    }
  }
}
