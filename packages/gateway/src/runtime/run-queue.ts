import { createAgentMetrics, type Logger, type MetricsRegistry } from "@hermes/agent";
import type { Store } from "@hermes/store";
import { createAgentPool, type AgentPool } from "../agent/create-agent.js";
import type { ConfigIssue } from "../config/errors.js";
import type { GatewayConfig } from "../config/gateway-config.js";
import type { HookPort } from "../core/ports.js";
import { approvalGateFor } from "../approval/approval-wiring.js";
import { createRunProcessor } from "../core/run-processor.js";
import { InlineQueue } from "../queue/inline-queue.js";
import { InMemorySessionLock } from "../queue/session-lock.js";
import { storeOutageCheck } from "./store-outage.js";
import type { AgentRunQueue } from "../queue/types.js";
import { InMemorySessionWaiters, wakingSessionLock } from "../queue/session-waiters.js";
import { createWithSessionLock, type WithSessionLock } from "./command-session-lock.js";
import { createBudgetRefusalsMetric } from "./gateway-metrics.js";
import { QueueRelay } from "./queue-relay.js";
import type { SharedFilesSync } from "../shared-files/shared-files-sync.js";
import type { StreamUpdate } from "../streaming/stream-update.js";

// How long start-up waits for Redis before going on without it (messages are then relayed once it answers).
const REDIS_START_WAIT_MS = 5_000;

export type RunQueueSetup =
  | {
      ok: true;
      queue: AgentRunQueue;
      /** Runs a gateway-side command that changes a conversation (/undo, /retry, /compress) under the runs' session lock. */
      withSessionLock: WithSessionLock;
      /** With Redis: the intake relay, whose backlog /readyz reports. */
      relay?: QueueRelay;
      pool?: AgentPool;
      mode: "inline" | "bullmq";
    }
  | { ok: false; issue: ConfigIssue };

/**
 * Where agent runs happen: in this process (embedded default), or — with REDIS_URL — on BullMQ workers, in which case
 * this process only enqueues.
 */
export async function createRunQueue(
  config: GatewayConfig,
  deps: { store: Store; hooks: HookPort; logger: Logger; metrics: MetricsRegistry; sharedFiles?: SharedFilesSync; streamTo?: (update: StreamUpdate) => void },
): Promise<RunQueueSetup> {
  if (config.redisUrl) {
    // Loaded only here: an embedded gateway never needs bullmq or ioredis in memory.
    const { BullMqQueue, withDeadline } = await import("../queue/bullmq-queue.js");
    const producer = new BullMqQueue({ redisUrl: config.redisUrl, logger: deps.logger });
    try {
      await withDeadline(producer.ready(), REDIS_START_WAIT_MS, "answer at start-up");
    } catch (error) {
      deps.logger.warn("redis unreachable at start-up; messages are kept and relayed when it answers", { error });
    }
    const relay = new QueueRelay({ queue: producer, logger: deps.logger });
    // A settled run released its session: commands waiting here for it may go on.
    const commandWaiters = new InMemorySessionWaiters();
    relay.onSettled((job) => void commandWaiters.wake(job.sessionKey));
    const withSessionLock = createWithSessionLock({ lock: producer.sessionLock(commandWaiters), waiters: commandWaiters, logger: deps.logger });
    return { ok: true, queue: relay, relay, withSessionLock, mode: "bullmq" };
  }
  const built = await createAgentPool(config, { logger: deps.logger, store: deps.store, metrics: createAgentMetrics(deps.metrics), sharedFiles: deps.sharedFiles });
  if (!built.ok) return built;
  const pool = built.pool;
  const sharedFiles = deps.sharedFiles;
  const budgetRefusals = createBudgetRefusalsMetric(deps.metrics);
  // One lock for runs and commands; whoever releases it wakes the runs parked behind the session.
  const locks = new InMemorySessionLock();
  const waiters = new InMemorySessionWaiters();
  const sessionLock = wakingSessionLock(locks, waiters, deps.logger);
  const processor = createRunProcessor({
    store: deps.store,
    lock: sessionLock,
    agentFor: (model) => pool.agentFor(model),
    compressorFor: (key) => pool.compressorFor(key),
    memoryFor: (message, sessionId) => pool.memory.forMessage(message, sessionId),
    reviewerFor: (key, memory) => pool.reviewerFor(key, memory),
    beforeRun: sharedFiles && ((key, sessionId) => sharedFiles.beforeRun(key, sessionId)),
    hooks: deps.hooks,
    streamTo: deps.streamTo,
    // The prompt goes out at once: the run waits on the answer, in this process's queue.
    approvalGate: approvalGateFor(config, { approvals: deps.store.approvals, deliveries: deps.store.deliveries, announce: (inboundId) => queue.repliesStored(inboundId), logger: deps.logger, metrics: deps.metrics }),
    dailyBudgetUsd: config.limits.dailyBudgetUsd,
    onBudgetRefused: (message) => budgetRefusals.inc(1, { platform: message.platform }),
    // Called only while a run is under way, so after `queue` below exists.
    onReplyStored: (inboundId) => queue.repliesStored(inboundId),
    sessionScope: config.sessionScope,
    workspace: config.paths.workspace,
    logger: deps.logger,
  });
  const queue = new InlineQueue(processor, { concurrency: config.workers, logger: deps.logger, waiters, sessionLocked: (key) => locks.isHeld(key), storeAway: storeOutageCheck(deps.store) });
  const withSessionLock = createWithSessionLock({ lock: sessionLock, waiters, logger: deps.logger });
  return { ok: true, queue, withSessionLock, pool, mode: "inline" };
}
