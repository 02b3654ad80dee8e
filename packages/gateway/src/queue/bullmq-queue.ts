import { randomUUID } from "node:crypto";
import { silentLogger, type Logger } from "@hermes/agent";
import { Queue, QueueEvents, type QueueEventsListener } from "bullmq";
import type { Redis } from "ioredis";
import { closeRedis, openRedis } from "./redis-connection.js";
import { RedisSessionLock } from "./session-lock.js";
import { promoteDelayed } from "./promote-delayed.js";
import { RedisSessionWaiters, wakingSessionLock, type SessionWakeup } from "./session-waiters.js";
import { notifySettled } from "./settled-listeners.js";
import { publishStop } from "./stop-channel.js";
import {
  DEFAULT_RUN_QUEUE_NAME,
  REPLIES_STORED_EVENT,
  copyAgentRunJob,
  parseAgentRunJob,
  runJobId,
  type AgentRunJob,
  type AgentRunQueue,
  type RepliesStoredListener,
  type SessionLock,
  type SettledListener,
  type SettledOutcome,
} from "./types.js";

export interface BullMqQueueOptions {
  redisUrl: string;
  queueName?: string;
  logger?: Logger;
  /** Tries per run before it fails for good (default 5). */
  attempts?: number;
  /** First retry delay after a failed try, doubled each time (default 1000). */
  retryBackoffMs?: number;
  /** Marks each add so a duplicate can be told from our own job; random by default. */
  newEnqueueToken?: () => string;
  /** An enqueue that Redis has not confirmed by then fails (default 2000): intake must not hang behind an outage. */
  enqueueTimeoutMs?: number;
}

/** The stream's fields arrive as strings. */
type RepliesStoredEvents = QueueEventsListener & { [REPLIES_STORED_EVENT]: (args: { inboundIds: string }, id: string) => void };

/** What is stored in Redis: the job plus the token of the enqueue that created it. */
interface StoredRun extends AgentRunJob {
  enqueueToken: string;
}

const KEEP_COMPLETED = 1_000;
const KEEP_FAILED = 5_000;

/** The producer side of the BullMQ run queue (the gateway process when REDIS_URL is set). */
export class BullMqQueue implements AgentRunQueue {
  private readonly redisUrl: string;
  private readonly queueName: string;
  private readonly logger: Logger;
  private readonly newEnqueueToken: () => string;
  private readonly attempts: number;
  private readonly retryBackoffMs: number;
  private readonly enqueueTimeoutMs: number;
  private readonly connection: Redis;
  private readonly queue: Queue<StoredRun, AgentRunJob, "run">;
  private readonly listeners: SettledListener[] = [];
  private readonly repliesListeners: RepliesStoredListener[] = [];
  private events: QueueEvents | undefined;
  private listening: Promise<void> | undefined;
  private closing: Promise<void> | undefined;

  constructor(options: BullMqQueueOptions) {
    this.redisUrl = options.redisUrl;
    this.queueName = options.queueName ?? DEFAULT_RUN_QUEUE_NAME;
    this.logger = options.logger ?? silentLogger;
    this.newEnqueueToken = options.newEnqueueToken ?? randomUUID;
    this.attempts = options.attempts ?? 5;
    this.retryBackoffMs = options.retryBackoffMs ?? 1_000;
    this.enqueueTimeoutMs = options.enqueueTimeoutMs ?? 2_000;
    this.connection = openRedis(this.redisUrl, { name: "hermes-run-producer", failFast: true }, this.logger);
    this.queue = new Queue<StoredRun, AgentRunJob, "run">(this.queueName, { connection: this.connection });
    this.queue.on("error", (error: Error) => {
      // An outage is already logged by the connection, once; this is the same failure seen by BullMQ.
      if (this.connection.status !== "ready") return this.logger.debug("run queue error", { error });
      this.logger.error("run queue error", { error });
    });
    this.ensureListening().catch((error: unknown) => this.logger.warn("run queue not listening yet", { error }));
  }

  /** Resolves once settle events are being read, so none for a job enqueued after this is missed. */
  ready(): Promise<void> {
    return this.ensureListening();
  }

  /** Rejects within enqueueTimeoutMs when Redis does not answer; a late add is harmless (the job id is the inbound's). */
  async enqueue(job: AgentRunJob): Promise<{ enqueued: boolean }> {
    if (this.closing) {
      this.logger.warn("run not enqueued: queue is closing", { ...job });
      return { enqueued: false };
    }
    const abandoned = new AbortController();
    return withDeadline(this.add(job, abandoned.signal), this.enqueueTimeoutMs, "enqueue").catch((error: unknown) => {
      abandoned.abort();
      throw error;
    });
  }

  private async add(job: AgentRunJob, abandoned: AbortSignal): Promise<{ enqueued: boolean }> {
    // While ioredis waits to reconnect, nothing sent now could be answered: fail at once rather than at the deadline.
    const status = this.connection.status;
    if (status === "reconnecting" || status === "close" || status === "end") throw new Error(`redis not connected (${status})`);
    await this.ensureListening();
    // The caller has moved on (the run is kept for relaying): adding it now would revive a run /stop may have dropped.
    if (abandoned.aborted) throw new Error("enqueue abandoned after its deadline");
    const jobId = runJobId(job.inboundId);
    const enqueueToken = this.newEnqueueToken();
    const data: StoredRun = { ...copyAgentRunJob(job), enqueueToken };
    await this.queue.add("run", data, {
      jobId,
      attempts: this.attempts,
      backoff: { type: "exponential", delay: this.retryBackoffMs },
      removeOnComplete: KEEP_COMPLETED,
      removeOnFail: KEEP_FAILED,
    });
    // BullMQ answers a duplicate id like a fresh add; the stored token tells whose add created the job. Only the data
    // field is read: the whole job (HGETALL, parsed into a Job) is not needed for that.
    const stored = await this.connection.hget(this.queue.toKey(jobId), "data");
    const enqueued = stored === null || readToken(stored) === enqueueToken;
    if (!enqueued) this.logger.debug("run already queued", { ...job });
    return { enqueued };
  }

  async stop(sessionKey: string): Promise<void> {
    await publishStop(this.connection, sessionKey);
  }

  onSettled(listener: SettledListener): void {
    this.listeners.push(listener);
  }

  onRepliesStored(listener: RepliesStoredListener): void {
    this.repliesListeners.push(listener);
  }

  async waiting(): Promise<number> {
    return withDeadline(this.queue.getJobCountByTypes("waiting", "delayed", "prioritized"), this.enqueueTimeoutMs, "count waiting runs");
  }

  /**
   * The runs' session lock, taken from the gateway (commands that change a conversation); on this fail-fast
   * connection, so a command during an outage fails at once. Releasing it promotes the runs parked behind the session
   * and wakes `alsoWake` (e.g. other commands waiting in this process).
   */
  sessionLock(alsoWake: SessionWakeup): SessionLock {
    const parked = new RedisSessionWaiters(this.connection, { promote: (jobIds) => this.promote(jobIds) });
    const wakeup: SessionWakeup = {
      wake: async (sessionKey) => {
        await alsoWake.wake(sessionKey);
        await parked.wake(sessionKey);
      },
    };
    return wakingSessionLock(new RedisSessionLock(this.connection), wakeup, this.logger);
  }

  /** Moves delayed jobs (runs parked until their session is free) to the front of the wait; a job no longer delayed is skipped. */
  async promote(jobIds: readonly string[]): Promise<number> {
    return promoteDelayed(this.queue, jobIds);
  }

  /** The producer runs no jobs, so there is nothing to drain: it just stops listening and disconnects. */
  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  /** Polite while Redis answers; during an outage the connections are just dropped, so a shutdown never hangs on it. */
  private async shutDown(): Promise<void> {
    const polite = (async () => {
      await this.listening?.catch(() => undefined);
      await this.events?.close();
      await this.queue.close();
    })();
    try {
      await withDeadline(polite, this.enqueueTimeoutMs, "close the run queue");
    } catch (error) {
      this.logger.warn("run queue closed without reaching redis", { error });
      // BullMQ's own disconnect waits for a connection that never came up; dropping the sockets is enough.
      this.connection.disconnect();
      void Promise.allSettled([this.events?.disconnect(), this.queue.disconnect()]);
      return;
    }
    await closeRedis(this.connection);
  }

  private ensureListening(): Promise<void> {
    this.listening ??= this.listen().catch((error: unknown) => {
      this.listening = undefined;
      throw error;
    });
    return this.listening;
  }

  private async listen(): Promise<void> {
    // Read events from the stream's current end, fixed now: QueueEvents' default "$" would be taken only at its
    // first read, and a job settling before that would never be reported.
    // The producer's connection has no offline queue: commands sent before it is up would fail at once.
    await this.queue.waitUntilReady();
    const newest = await this.connection.xrevrange(this.queue.toKey("events"), "+", "-", "COUNT", 1);
    if (this.closing) return;
    const events = new QueueEvents(this.queueName, {
      connection: { url: this.redisUrl, maxRetriesPerRequest: null, connectionName: "hermes-run-events" },
      lastEventId: newest[0]?.[0] ?? "0-0",
    });
    this.events = events;
    events.on("error", (error: Error) => this.logger.error("run queue events error", { error }));
    events.on("completed", ({ jobId, returnvalue }) => void this.settle(jobId, returnvalue, "done"));
    // QueueEvents reports "failed" only when no attempt remains; earlier failures come back as "delayed".
    events.on("failed", ({ jobId }) => void this.settle(jobId, undefined, "failed"));
    events.on<RepliesStoredEvents, typeof REPLIES_STORED_EVENT>(REPLIES_STORED_EVENT, ({ inboundIds }) => this.repliesStored(inboundIds));
    await events.waitUntilReady();
  }

  /** The event's ids arrive as one comma-separated field (any Redis client can write to the stream: junk is skipped). */
  private repliesStored(raw: unknown): void {
    if (typeof raw !== "string") return;
    for (const inboundId of raw.split(",").map(Number)) if (Number.isSafeInteger(inboundId)) this.tellRepliesStored(inboundId);
  }

  private tellRepliesStored(inboundId: number): void {
    for (const listener of this.repliesListeners) {
      try {
        listener(inboundId);
      } catch (error) {
        this.logger.error("a replies-stored listener threw", { inboundId, error });
      }
    }
  }

  private async settle(jobId: string, returned: unknown, outcome: SettledOutcome): Promise<void> {
    try {
      const job = parseAgentRunJob(returned) ?? parseAgentRunJob((await this.queue.getJob(jobId))?.data);
      if (job === undefined) {
        this.logger.warn("settled run no longer in the queue", { jobId, outcome });
        return;
      }
      notifySettled(this.listeners, job, outcome, this.logger);
    } catch (error) {
      this.logger.error("could not report a settled run", { jobId, outcome, error });
    }
  }
}

/** A Redis command that neither answers nor fails (e.g. mid-reconnect) must not hold its caller beyond `ms`. */
export function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`redis did not ${what} within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/** The enqueue token in a job's stored data (JSON), if it has one. */
function readToken(stored: string): unknown {
  let data: unknown;
  try {
    data = JSON.parse(stored);
  } catch {
    return undefined;
  }
  return typeof data === "object" && data !== null ? Reflect.get(data, "enqueueToken") : undefined;
}
