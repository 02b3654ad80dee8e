import { randomUUID } from "node:crypto";
import { silentLogger, type Logger } from "@hermes/agent";
import { Queue, QueueEvents } from "bullmq";
import type { Redis } from "ioredis";
import { closeRedis, openRedis } from "./redis-connection.js";
import { notifySettled } from "./settled-listeners.js";
import { publishStop } from "./stop-channel.js";
import {
  DEFAULT_RUN_QUEUE_NAME,
  copyAgentRunJob,
  parseAgentRunJob,
  runJobId,
  type AgentRunJob,
  type AgentRunQueue,
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
}

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
  private readonly connection: Redis;
  private readonly queue: Queue<StoredRun, AgentRunJob, "run">;
  private readonly listeners: SettledListener[] = [];
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
    this.connection = openRedis(this.redisUrl, { name: "hermes-run-producer" }, this.logger);
    this.queue = new Queue<StoredRun, AgentRunJob, "run">(this.queueName, { connection: this.connection });
    this.queue.on("error", (error: Error) => this.logger.error("run queue error", { error }));
    this.ensureListening().catch((error: unknown) => this.logger.warn("run queue not listening yet", { error }));
  }

  /** Resolves once settle events are being read, so none for a job enqueued after this is missed. */
  ready(): Promise<void> {
    return this.ensureListening();
  }

  async enqueue(job: AgentRunJob): Promise<{ enqueued: boolean }> {
    if (this.closing) {
      this.logger.warn("run not enqueued: queue is closing", { ...job });
      return { enqueued: false };
    }
    await this.ensureListening();
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
    // BullMQ answers a duplicate id like a fresh add; the stored token tells whose add created the job.
    const stored = await this.queue.getJob(jobId);
    const enqueued = stored === undefined || readToken(stored.data) === enqueueToken;
    if (!enqueued) this.logger.debug("run already queued", { ...job });
    return { enqueued };
  }

  async stop(sessionKey: string): Promise<void> {
    await publishStop(this.connection, sessionKey);
  }

  onSettled(listener: SettledListener): void {
    this.listeners.push(listener);
  }

  async waiting(): Promise<number> {
    return this.queue.getJobCountByTypes("waiting", "delayed", "prioritized");
  }

  /** The producer runs no jobs, so there is nothing to drain: it just stops listening and disconnects. */
  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    await this.listening?.catch(() => undefined);
    await this.events?.close();
    await this.queue.close();
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
    await events.waitUntilReady();
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

function readToken(data: unknown): unknown {
  return typeof data === "object" && data !== null ? Reflect.get(data, "enqueueToken") : undefined;
}
