import { silentLogger, type Logger } from "@hermes/agent";
import { DelayedError, Queue, UnrecoverableError, WaitingError, Worker, type Job } from "bullmq";
import type { Redis } from "ioredis";
import { closeRedis, openRedis } from "./redis-connection.js";
import { RunRegistry, type RunHandle } from "./run-registry.js";
import { promoteDelayed } from "./promote-delayed.js";
import { PARKED_SAFETY_DELAY_MS, RedisSessionWaiters } from "./session-waiters.js";
import { settlesWithin, timerScheduler, type Scheduler } from "./scheduler.js";
import { StopListener } from "./stop-channel.js";
import { STORE_RECHECK_MS } from "./store-outage.js";
import {
  DEFAULT_RUN_QUEUE_NAME,
  REPLIES_STORED_EVENT,
  parseAgentRunJob,
  type AgentRunJob,
  type QueueCloseOptions,
  type RunOutcome,
  type RunProcessor,
  type WorkerHealth,
} from "./types.js";

export interface BullMqWorkerHostOptions {
  redisUrl: string;
  queueName?: string;
  processor: RunProcessor;
  /** Runs at once in this process (HERMES_WORKERS). */
  concurrency: number;
  /** A job's lock lives this long unless renewed; BullMQ renews it at half-time while the processor runs. */
  lockDurationMs?: number;
  /** How often this worker looks for jobs whose lock expired (their worker died). */
  stalledIntervalMs?: number;
  /** Stalls a job survives before it fails for good. */
  maxStalledCount?: number;
  /**
   * A "retry_later" job (its session is locked) is parked as delayed and promoted as soon as the session is released;
   * it looks again by itself when the lock would expire (its holder died) or after this long at most (default 30 s).
   */
  parkedSafetyDelayMs?: number;
  /** After aborting runs that outlived the drain, how long close() waits for them to hand their jobs back. */
  abortGraceMs?: number;
  /** Whether the state database is away (store-outage.ts): a run failing then waits for it without using an attempt. */
  storeAway?: () => Promise<boolean>;
  logger?: Logger;
  now?: () => number;
  scheduler?: Scheduler;
}

const DEFAULT_DRAIN_MS = 10_000;
// BullMQ's own cap on the event stream (its default maxLenEvents); a custom event must not trim it shorter.
const MAX_STREAM_EVENTS = 10_000;
// A parked job looks again this long after its session's lock would expire.
const LOCK_EXPIRY_MARGIN_MS = 250;

/**
 * The consumer side of the BullMQ run queue (the `npm run worker` process). Short job locks, renewed while a run is
 * alive, let another worker take over within lockDuration + 2 × stalledInterval when this process dies.
 */
export class BullMqWorkerHost {
  private readonly processor: RunProcessor;
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly scheduler: Scheduler;
  private readonly parkedSafetyDelayMs: number;
  private readonly abortGraceMs: number;
  private readonly storeAway: () => Promise<boolean>;
  private readonly connection: Redis;
  private readonly workers: Array<Worker<unknown, AgentRunJob>>;
  /** Only for promoting parked jobs; the worker takes jobs through its own connection. */
  private readonly promoter: Queue;
  /** The queue's event stream, which the gateway already reads; our own events go there too. */
  private readonly eventsKey: string;
  private readonly waiters: RedisSessionWaiters;
  private readonly stops: StopListener;
  private readonly runs = new RunRegistry();
  private readonly started: Promise<void>;
  private processed = 0;
  private failed = 0;
  private closing: Promise<void> | undefined;

  constructor(options: BullMqWorkerHostOptions) {
    this.processor = options.processor;
    this.logger = options.logger ?? silentLogger;
    this.now = options.now ?? Date.now;
    this.scheduler = options.scheduler ?? timerScheduler;
    this.parkedSafetyDelayMs = options.parkedSafetyDelayMs ?? PARKED_SAFETY_DELAY_MS;
    this.abortGraceMs = options.abortGraceMs ?? 2_000;
    this.storeAway = options.storeAway ?? (async () => false);
    this.connection = openRedis(options.redisUrl, { name: "hermes-worker", waitThroughOutages: true }, this.logger);
    const queueName = options.queueName ?? DEFAULT_RUN_QUEUE_NAME;
    // During an outage the connection has logged it once already; these are the same failure seen by BullMQ.
    const outage = (): boolean => this.connection.status !== "ready";
    // One BullMQ Worker per run slot, each taking one job at a time: a Worker with room for more fetches again (and
    // waits for Redis's answer) before it starts the job it just took, which puts a round trip in front of every run.
    this.workers = Array.from({ length: Math.max(1, options.concurrency) }, (_, slot) => {
      const worker = new Worker<unknown, AgentRunJob>(queueName, (job, token) => this.process(job, token), {
        connection: this.connection,
        concurrency: 1,
        lockDuration: options.lockDurationMs ?? 10_000,
        stalledInterval: options.stalledIntervalMs ?? 5_000,
        maxStalledCount: options.maxStalledCount ?? 3,
        // The stalled-job check covers the whole queue; one slot per process doing it is enough.
        skipStalledCheck: slot > 0,
        // After a Redis outage the worker takes jobs again within about 2 s, not BullMQ's default 15 s.
        runRetryDelay: 2_000,
        autorun: false,
      });
      worker.on("error", (error: Error) => (outage() ? this.logger.debug("run worker error", { error }) : this.logger.error("run worker error", { error })));
      worker.on("failed", (job: Job | undefined, error: Error) => {
        this.logger.warn("agent run attempt failed", { jobId: job?.id, attemptsMade: job?.attemptsMade, error });
      });
      return worker;
    });
    this.promoter = new Queue(queueName, { connection: this.connection });
    this.promoter.on("error", (error: Error) => (outage() ? this.logger.debug("run queue error", { error }) : this.logger.error("run queue error", { error })));
    this.eventsKey = this.promoter.toKey("events");
    this.waiters = new RedisSessionWaiters(this.connection, { promote: (jobIds) => promoteDelayed(this.promoter, jobIds) });
    this.stops = new StopListener(options.redisUrl, (sessionKey) => this.stopSession(sessionKey), this.logger);
    this.started = this.start();
    this.started.catch((error: unknown) => {
      if (!this.closing) this.logger.error("run worker failed to start", { error });
    });
  }

  /** Resolves once stop requests are heard and jobs are being taken. */
  ready(): Promise<void> {
    return this.started;
  }

  /**
   * Tells the gateway that a run's replies are in the outbox, through the queue's event stream (which it reads anyway),
   * so it delivers them before the job completes. Not awaited: a lost announcement only defers the delivery to the job's
   * completion event.
   */
  repliesStored(inboundIds: readonly number[]): void {
    // Written straight away (as BullMQ's QueueEventsProducer would, minus its asynchronous set-up), so it leaves before
    // the run's session release.
    this.connection.xadd(this.eventsKey, "MAXLEN", "~", MAX_STREAM_EVENTS, "*", "event", REPLIES_STORED_EVENT, "inboundIds", inboundIds.join(",")).catch((error: unknown) => {
      this.logger.debug("could not announce stored replies; the job's completion will", { inboundIds, error });
    });
  }

  workerHealth(): WorkerHealth {
    return { running: this.runs.size, processed: this.processed, failed: this.failed, closing: this.closing !== undefined };
  }

  /** Stops taking jobs, waits up to drainMs for running ones, then aborts them and hands their jobs back to the queue. */
  close(options: QueueCloseOptions = {}): Promise<void> {
    this.closing ??= this.shutDown(options.drainMs ?? DEFAULT_DRAIN_MS);
    return this.closing;
  }

  private async start(): Promise<void> {
    // Subscribe first: a stop for a run this worker takes must never fall in a gap.
    await this.stops.ready;
    if (this.closing) return;
    for (const worker of this.workers) worker.run().catch((error: unknown) => this.logger.error("run worker loop ended", { error }));
    await Promise.all(this.workers.map((worker) => worker.waitUntilReady()));
  }

  private stopSession(sessionKey: string): void {
    const aborted = this.runs.abortSession(sessionKey);
    if (aborted > 0) this.logger.info("stopping runs", { sessionKey, runs: aborted });
  }

  private async shutDown(drainMs: number): Promise<void> {
    await Promise.all(this.workers.map((worker) => (worker.isRunning() ? worker.pause(true) : undefined)));
    let force = false;
    if (!(await settlesWithin(this.runs.whenIdle(), drainMs, this.scheduler))) {
      const aborted = this.runs.abortAll("shutdown");
      this.logger.warn("runs outlived the shutdown drain; handing them back to the queue", { runs: aborted, drainMs });
      force = !(await settlesWithin(this.runs.whenIdle(), this.abortGraceMs, this.scheduler));
      // Their locks stop being renewed, so another worker picks their jobs up once the locks expire.
      if (force) this.logger.error("runs ignored their abort signal at shutdown", { runs: this.runs.size });
    }
    await Promise.all(this.workers.map((worker) => worker.close(force)));
    await this.promoter.close();
    await this.stops.close();
    await closeRedis(this.connection);
  }

  private async process(job: Job<unknown, AgentRunJob>, token: string | undefined): Promise<AgentRunJob> {
    const data = parseAgentRunJob(job.data);
    if (data === undefined) throw new UnrecoverableError(`malformed agent run job ${job.id ?? "?"}`);
    const run = this.runs.start(data);
    let parked = false;
    try {
      const outcome = await this.runProcessor(run, job, token);
      if (outcome === "retry_later") {
        parked = true;
        await this.park(job, data.sessionKey, token);
        throw new DelayedError();
      }
      return data;
    } finally {
      this.processed += 1;
      run.finish();
      // The processor released the session (if it held it): runs parked behind it may start now.
      if (!parked) await this.wake(data.sessionKey);
    }
  }

  /**
   * Registered once delayed, then the lock looked at: a wake before the registration either left the lock free (the
   * job promotes itself) or was followed by a new holder, whose release finds the job registered and delayed. (A
   * registration before parking could be cleared by a wake that found the job not yet delayed, and a new holder's
   * release would then miss it.)
   */
  private async park(job: Job<unknown, AgentRunJob>, sessionKey: string, token: string | undefined): Promise<void> {
    const jobId = job.id;
    if (jobId === undefined) throw new Error("a BullMQ job without an id cannot be parked");
    // A holder that died never wakes anyone, but its lock expires: looking again then keeps takeover within the lease.
    const lockLeft = (await this.waiters.lockExpiresInMs(sessionKey)) ?? 0;
    await job.moveToDelayed(this.now() + Math.min(this.parkedSafetyDelayMs, lockLeft + LOCK_EXPIRY_MARGIN_MS), token);
    await this.waiters.register(sessionKey, jobId);
    if (!(await this.waiters.sessionLocked(sessionKey))) await promoteDelayed(this.promoter, [jobId]);
  }

  private async wake(sessionKey: string): Promise<void> {
    try {
      await this.waiters.wake(sessionKey);
    } catch (error) {
      this.logger.warn("could not wake runs waiting for a session; their safety delay will", { sessionKey, error });
    }
  }

  /** The processor's outcome; a run cut short by shutdown goes back to the queue instead of completing. */
  private async runProcessor(run: RunHandle, job: Job<unknown, AgentRunJob>, token: string | undefined): Promise<RunOutcome> {
    let outcome: RunOutcome;
    try {
      outcome = await this.processor(run.job, { signal: run.signal });
    } catch (error) {
      if (run.abortCause() === "shutdown") return this.handBack(job, token);
      // Looked at again after asking: a stop that came meanwhile must not be undone by a retry.
      if (run.abortCause() === undefined && (await this.storeAway()) && run.abortCause() === undefined) return this.waitForStore(job, token, error);
      if (run.abortCause() === "shutdown") return this.handBack(job, token);
      this.failed += 1;
      // Retrying a run the user stopped would undo the stop.
      if (run.abortCause() === "stop") throw new UnrecoverableError(`run stopped and then failed: ${messageOf(error)}`);
      throw error;
    }
    if (run.abortCause() === "shutdown") return this.handBack(job, token);
    return outcome;
  }

  /** Delayed again without using an attempt, which an outage of the database would spend within seconds. */
  private async waitForStore(job: Job<unknown, AgentRunJob>, token: string | undefined, error: unknown): Promise<never> {
    this.logger.warn("agent run failed while the state database is away; it runs again once the database is back", { jobId: job.id, error, retryInMs: STORE_RECHECK_MS });
    await job.moveToDelayed(this.now() + STORE_RECHECK_MS, token);
    throw new DelayedError();
  }

  private async handBack(job: Job<unknown, AgentRunJob>, token: string | undefined): Promise<never> {
    await job.moveToWait(token);
    throw new WaitingError();
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
