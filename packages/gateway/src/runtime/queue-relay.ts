import type { Logger } from "@hermes/agent";
import { timerScheduler, type Scheduler } from "../queue/scheduler.js";
import { copyAgentRunJob, type AgentRunJob, type AgentRunQueue, type QueueCloseOptions, type RepliesStoredListener, type SettledListener } from "../queue/types.js";

export interface QueueRelayOptions {
  /** The Redis-backed queue (BullMQ producer); its enqueue fails fast while Redis is unreachable. */
  queue: AgentRunQueue;
  logger: Logger;
  /** How often the relay tries again while Redis does not answer (default 1000). */
  retryMs?: number;
  scheduler?: Scheduler;
}

/**
 * The gateway's run queue when runs go through Redis. Intake never waits for Redis: a message is already persisted
 * ("queued") when its run is enqueued, so an enqueue Redis cannot take now is kept here and relayed once Redis
 * answers again. Relaying is idempotent (the job id is the inbound's), and after a restart the gateway's recovery
 * enqueues every queued message again, through this same relay.
 */
export class QueueRelay implements AgentRunQueue {
  private readonly logger: Logger;
  private readonly retryMs: number;
  private readonly scheduler: Scheduler;
  /** Runs Redis has not taken yet, oldest first. */
  private readonly backlog = new Map<number, AgentRunJob>();
  private cancelRetry: (() => void) | undefined;
  private relaying: Promise<void> | undefined;
  private outage = false;
  private closed = false;
  private relayedTotal = 0;

  constructor(private readonly options: QueueRelayOptions) {
    this.logger = options.logger;
    this.retryMs = options.retryMs ?? 1_000;
    this.scheduler = options.scheduler ?? timerScheduler;
  }

  /** Never throws for an unreachable Redis: the run is kept and counts as enqueued. */
  async enqueue(job: AgentRunJob): Promise<{ enqueued: boolean }> {
    if (this.backlog.has(job.inboundId)) return { enqueued: false };
    // Behind a backlog a message waits its turn, so the relay keeps arrival order.
    if (this.backlog.size > 0) {
      this.hold(job);
      void this.relay();
      return { enqueued: true };
    }
    try {
      return await this.options.queue.enqueue(job);
    } catch (error) {
      this.hold(job, error);
      return { enqueued: true };
    }
  }

  /** Runs kept until Redis answers (for /readyz). */
  backlogSize(): number {
    return this.backlog.size;
  }

  /** Runs relayed after an outage since start (for logs and tests). */
  relayed(): number {
    return this.relayedTotal;
  }

  /** Kept runs of the session are dropped (their messages were cancelled); running ones are stopped if Redis answers. */
  async stop(sessionKey: string): Promise<void> {
    for (const [inboundId, job] of this.backlog) if (job.sessionKey === sessionKey) this.backlog.delete(inboundId);
    try {
      await this.options.queue.stop(sessionKey);
    } catch (error) {
      this.logger.warn("could not tell the workers to stop: redis unreachable", { sessionKey, error });
    }
  }

  onSettled(listener: SettledListener): void {
    this.options.queue.onSettled(listener);
  }

  onRepliesStored(listener: RepliesStoredListener): void {
    this.options.queue.onRepliesStored?.(listener);
  }

  async waiting(): Promise<number> {
    const queued = await this.options.queue.waiting().catch(() => 0);
    return queued + this.backlog.size;
  }

  /** What is still kept stays "queued" in the store: the next start's recovery enqueues it. */
  async close(options?: QueueCloseOptions): Promise<void> {
    this.closed = true;
    this.cancelRetry?.();
    this.cancelRetry = undefined;
    if (this.backlog.size > 0) this.logger.warn("closing with runs not yet relayed; they are enqueued at the next start", { runs: this.backlog.size });
    await this.relaying?.catch(() => undefined);
    await this.options.queue.close(options);
  }

  private hold(job: AgentRunJob, error?: unknown): void {
    this.backlog.set(job.inboundId, copyAgentRunJob(job));
    if (!this.outage) {
      this.outage = true;
      this.logger.warn("redis unreachable: messages are kept and relayed to the run queue when it answers", { inboundId: job.inboundId, error });
    }
    this.retryLater();
  }

  private retryLater(): void {
    if (this.closed || this.cancelRetry) return;
    this.cancelRetry = this.scheduler.after(this.retryMs, () => {
      this.cancelRetry = undefined;
      void this.relay();
    });
  }

  /** One pass over the backlog at a time, oldest first; the first failure ends the pass until the next retry. */
  relay(): Promise<void> {
    this.relaying ??= this.relayBacklog().finally(() => {
      this.relaying = undefined;
    });
    return this.relaying;
  }

  private async relayBacklog(): Promise<void> {
    let relayed = 0;
    // Runs kept while a pass is under way join it: the pass ends only when the backlog is empty or Redis fails.
    for (let next = this.oldest(); next !== undefined && !this.closed; next = this.oldest()) {
      try {
        await this.options.queue.enqueue(next);
      } catch (error) {
        if (relayed > 0) this.logger.info("relayed messages to the run queue", { relayed, left: this.backlog.size });
        this.logger.debug("redis still unreachable; relaying later", { waiting: this.backlog.size, error });
        this.retryLater();
        return;
      }
      this.backlog.delete(next.inboundId);
      relayed += 1;
      this.relayedTotal += 1;
    }
    if (relayed > 0) this.logger.info("redis answers again: relayed messages to the run queue", { relayed });
    if (this.backlog.size === 0) this.outage = false;
  }

  private oldest(): AgentRunJob | undefined {
    return this.backlog.values().next().value;
  }
}
