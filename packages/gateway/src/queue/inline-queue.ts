import { silentLogger, type Logger } from "@hermes/agent";
import { RunRegistry } from "./run-registry.js";
import { InMemorySessionWaiters, PARKED_SAFETY_DELAY_MS } from "./session-waiters.js";
import { settlesWithin, timerScheduler, type Scheduler } from "./scheduler.js";
import { notifySettled } from "./settled-listeners.js";
import { STORE_RECHECK_MS } from "./store-outage.js";
import {
  copyAgentRunJob,
  type AgentRunJob,
  type AgentRunQueue,
  type QueueCloseOptions,
  type RepliesStoredListener,
  type RunAbortCause,
  type RunOutcome,
  type RunProcessor,
  type SettledListener,
  type SettledOutcome,
} from "./types.js";

export interface InlineQueueOptions {
  /** Runs at once (HERMES_WORKERS). */
  concurrency: number;
  /** Where a "retry_later" job (its session is locked) is parked until the lock's holder releases it and wakes it. */
  waiters?: InMemorySessionWaiters;
  /** Whether a session's lock is held now: checked once after parking, in case it was released in between. */
  sessionLocked?: (sessionKey: string) => boolean;
  /** A parked job runs again after this long even if nobody woke it (default 30 s). */
  parkedSafetyDelayMs?: number;
  /** Retries of a processor that throws, before the job is settled as failed. */
  maxRetries?: number;
  /** First retry delay after a throw; doubled on each further retry. */
  failureBackoffMs?: number;
  /** After aborting runs that outlived the drain, how long close() still waits for them to return. */
  abortGraceMs?: number;
  /** Whether the state database is away (store-outage.ts): a run failing then waits for it, uncounted. */
  storeAway?: () => Promise<boolean>;
  logger?: Logger;
  scheduler?: Scheduler;
}

const DEFAULT_DRAIN_MS = 10_000;

interface QueuedRun {
  job: AgentRunJob;
  failures: number;
}

type ProcessorResult = { ok: true; outcome: RunOutcome } | { ok: false; error: unknown };

/** In-process run queue for the embedded (no Redis) deployment: FIFO, bounded concurrency, idempotent per inbound. */
export class InlineQueue implements AgentRunQueue {
  private readonly concurrency: number;
  private readonly waiters: InMemorySessionWaiters;
  private readonly sessionLocked: (sessionKey: string) => boolean;
  private readonly parkedSafetyDelayMs: number;
  private readonly maxRetries: number;
  private readonly failureBackoffMs: number;
  private readonly abortGraceMs: number;
  private readonly storeAway: () => Promise<boolean>;
  private readonly logger: Logger;
  private readonly scheduler: Scheduler;
  private readonly pending: QueuedRun[] = [];
  private readonly delayed = new Map<QueuedRun, () => void>();
  /** Inbound ids queued, delayed or running: the dedup set. */
  private readonly present = new Set<number>();
  private readonly runs = new RunRegistry();
  private readonly listeners: SettledListener[] = [];
  private readonly repliesListeners: RepliesStoredListener[] = [];
  private closing: Promise<void> | undefined;

  constructor(
    private readonly processor: RunProcessor,
    options: InlineQueueOptions,
  ) {
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1) {
      throw new RangeError(`InlineQueue concurrency must be a positive integer, got ${options.concurrency}`);
    }
    this.concurrency = options.concurrency;
    this.waiters = options.waiters ?? new InMemorySessionWaiters();
    // Without a lock to ask, a parked job waits for a wake (or its safety delay) rather than spinning.
    this.sessionLocked = options.sessionLocked ?? (() => true);
    this.parkedSafetyDelayMs = options.parkedSafetyDelayMs ?? PARKED_SAFETY_DELAY_MS;
    this.maxRetries = options.maxRetries ?? 3;
    this.failureBackoffMs = options.failureBackoffMs ?? 1_000;
    this.abortGraceMs = options.abortGraceMs ?? 5_000;
    this.storeAway = options.storeAway ?? (async () => false);
    this.logger = options.logger ?? silentLogger;
    this.scheduler = options.scheduler ?? timerScheduler;
  }

  async enqueue(job: AgentRunJob): Promise<{ enqueued: boolean }> {
    if (this.closing) {
      this.logger.warn("run not enqueued: queue is closing", { ...job });
      return { enqueued: false };
    }
    if (this.present.has(job.inboundId)) return { enqueued: false };
    this.present.add(job.inboundId);
    this.pending.push({ job: copyAgentRunJob(job), failures: 0 });
    this.pump();
    return { enqueued: true };
  }

  async stop(sessionKey: string): Promise<void> {
    const aborted = this.runs.abortSession(sessionKey);
    if (aborted > 0) this.logger.info("stopping runs", { sessionKey, runs: aborted });
  }

  onSettled(listener: SettledListener): void {
    this.listeners.push(listener);
  }

  onRepliesStored(listener: RepliesStoredListener): void {
    this.repliesListeners.push(listener);
  }

  /**
   * For the processor to call once a run committed a message's replies: its listeners deliver them then, not after
   * the run's remaining bookkeeping and the job's settling.
   */
  repliesStored(inboundId: number): void {
    for (const listener of this.repliesListeners) {
      try {
        listener(inboundId);
      } catch (error) {
        this.logger.error("replies-stored listener threw", { inboundId, error });
      }
    }
  }

  close(options: QueueCloseOptions = {}): Promise<void> {
    this.closing ??= this.shutDown(options.drainMs ?? DEFAULT_DRAIN_MS);
    return this.closing;
  }

  async waiting(): Promise<number> {
    return this.pending.length + this.delayed.size;
  }

  /** Runs in progress right now (for health reporting). */
  get running(): number {
    return this.runs.size;
  }

  private async shutDown(drainMs: number): Promise<void> {
    const dropped = this.pending.length + this.delayed.size;
    for (const queued of this.pending) this.present.delete(queued.job.inboundId);
    this.pending.length = 0;
    for (const [queued, cancel] of this.delayed) {
      cancel();
      this.present.delete(queued.job.inboundId);
    }
    this.delayed.clear();
    if (dropped > 0) this.logger.info("queued runs dropped at shutdown", { runs: dropped });

    if (await settlesWithin(this.runs.whenIdle(), drainMs, this.scheduler)) return;
    const aborted = this.runs.abortAll("shutdown");
    this.logger.warn("runs outlived the shutdown drain; aborting them", { runs: aborted, drainMs });
    if (await settlesWithin(this.runs.whenIdle(), this.abortGraceMs, this.scheduler)) return;
    this.logger.error("runs ignored their abort signal at shutdown", { runs: this.runs.size });
  }

  private pump(): void {
    while (!this.closing && this.runs.size < this.concurrency) {
      const next = this.pending.shift();
      if (!next) return;
      void this.execute(next);
    }
  }

  private async execute(queued: QueuedRun): Promise<void> {
    const handle = this.runs.start(queued.job);
    let result: ProcessorResult;
    try {
      result = { ok: true, outcome: await this.processor({ ...queued.job }, { signal: handle.signal }) };
    } catch (error) {
      result = { ok: false, error };
    }
    // Asked before the slot frees, so the run cannot start again in between; a stop or a shutdown that came while
    // the database was asked wins, or the stopped run would run again and the closed queue would keep a timer.
    const storeAway = !result.ok && handle.abortCause() === undefined && !this.closing && (await this.storeAway());
    const waitForStore = storeAway && handle.abortCause() === undefined && !this.closing;
    try {
      if (waitForStore) this.waitForStore(queued, result);
      else this.conclude(queued, result, handle.abortCause());
    } finally {
      handle.finish();
    }
    this.pump();
  }

  /** A throw after a stop is final (retrying would undo the stop); nothing is retried once shutdown began. */
  private conclude(queued: QueuedRun, result: ProcessorResult, aborted: RunAbortCause | undefined): void {
    const { job } = queued;
    if (result.ok) {
      if (result.outcome === "done") return this.settle(job, "done");
      if (this.closing) return this.forget(job, "session busy at shutdown");
      return this.park(queued);
    }
    this.logger.error("agent run failed", { ...job, error: result.error, attempt: queued.failures + 1 });
    if (aborted === "stop") return this.settle(job, "failed");
    if (this.closing) return this.forget(job, "failed at shutdown");
    if (queued.failures >= this.maxRetries) return this.settle(job, "failed");
    queued.failures += 1;
    this.later(queued, this.failureBackoffMs * 2 ** (queued.failures - 1));
  }

  /** Waits for the session's release; registered first, then the lock is looked at once, so no release is missed. */
  private park(queued: QueuedRun): void {
    const sessionKey = queued.job.sessionKey;
    let withdraw = (): void => undefined;
    let cancelSafety = (): void => undefined;
    const resume = (): void => {
      if (!this.delayed.delete(queued)) return;
      withdraw();
      cancelSafety();
      this.pending.push(queued);
      this.pump();
    };
    this.delayed.set(queued, () => {
      withdraw();
      cancelSafety();
    });
    withdraw = this.waiters.park(sessionKey, resume);
    cancelSafety = this.scheduler.after(this.parkedSafetyDelayMs, resume);
    if (!this.sessionLocked(sessionKey)) resume();
  }

  private waitForStore(queued: QueuedRun, result: ProcessorResult): void {
    const error = result.ok ? undefined : result.error;
    this.logger.warn("agent run failed while the state database is away; it runs again once the database is back", { ...queued.job, error, retryInMs: STORE_RECHECK_MS });
    this.later(queued, STORE_RECHECK_MS);
  }

  private later(queued: QueuedRun, delayMs: number): void {
    const cancel = this.scheduler.after(delayMs, () => {
      if (!this.delayed.delete(queued)) return;
      this.pending.push(queued);
      this.pump();
    });
    this.delayed.set(queued, cancel);
  }

  private settle(job: AgentRunJob, outcome: SettledOutcome): void {
    this.present.delete(job.inboundId);
    notifySettled(this.listeners, job, outcome, this.logger);
  }

  private forget(job: AgentRunJob, why: string): void {
    this.present.delete(job.inboundId);
    this.logger.info("run left unfinished", { ...job, why });
  }
}
