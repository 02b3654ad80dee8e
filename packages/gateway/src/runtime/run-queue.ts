import { createAgentMetrics, type Logger, type MetricsRegistry } from "@hermes/agent";
import type { Store } from "@hermes/store";
import { createAgentPool, type AgentPool } from "../agent/create-agent.js";
import type { ConfigIssue } from "../config/errors.js";
import type { GatewayConfig } from "../config/gateway-config.js";
import type { HookPort } from "../core/ports.js";
import { createRunProcessor } from "../core/run-processor.js";
import { BullMqQueue, InlineQueue, InMemorySessionLock, type AgentRunQueue } from "../queue/index.js";

export type RunQueueSetup =
  | { ok: true; queue: AgentRunQueue; pool?: AgentPool; mode: "inline" | "bullmq" }
  | { ok: false; issue: ConfigIssue };

/**
 * Where agent runs happen: in this process (embedded default), or — with REDIS_URL — on BullMQ workers, in which case
 * this process only enqueues.
 */
export async function createRunQueue(
  config: GatewayConfig,
  deps: { store: Store; hooks: HookPort; logger: Logger; metrics: MetricsRegistry },
): Promise<RunQueueSetup> {
  if (config.redisUrl) {
    const queue = new BullMqQueue({ redisUrl: config.redisUrl, logger: deps.logger });
    await queue.ready();
    return { ok: true, queue, mode: "bullmq" };
  }
  const built = await createAgentPool(config, { logger: deps.logger, store: deps.store, metrics: createAgentMetrics(deps.metrics) });
  if (!built.ok) return built;
  const pool = built.pool;
  const processor = createRunProcessor({
    store: deps.store,
    lock: new InMemorySessionLock(),
    agentFor: (model) => pool.agentFor(model),
    compressorFor: (key) => pool.compressorFor(key),
    memoryFor: (message, sessionId) => pool.memory.forMessage(message, sessionId),
    reviewerFor: (key, memory) => pool.reviewerFor(key, memory),
    hooks: deps.hooks,
    dailyBudgetUsd: config.limits.dailyBudgetUsd,
    sessionScope: config.sessionScope,
    logger: deps.logger,
  });
  return { ok: true, queue: new InlineQueue(processor, { concurrency: config.workers, logger: deps.logger }), pool, mode: "inline" };
}
