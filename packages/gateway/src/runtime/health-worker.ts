import type { Logger, McpServerStatus } from "@hermes/agent";
import type { Store } from "@hermes/store";
import type { WorkerHealth } from "../queue/types.js";
import type { HealthReport } from "./health.js";
import { runReadinessChecks, storeCheck, unreadyWhileStopping, type ReadinessReport } from "./readiness.js";
import { RedisProbe } from "./redis-probe.js";

export interface WorkerHealthOptions {
  store: Store;
  redisUrl: string;
  /** The model the worker's agents run, as resolved from its settings at start. */
  model: string | undefined;
  host: { workerHealth(): WorkerHealth };
  logger: Logger;
  isStopping: () => boolean;
  /** The MCP servers' states: a /readyz detail that never makes the worker unready. */
  mcpServers?: () => McpServerStatus[];
  now?: () => number;
}

export interface WorkerHealthEndpoints {
  health(): Promise<HealthReport>;
  readiness(): Promise<ReadinessReport>;
  close(): void;
}

/** A worker's liveness and readiness (`HERMES_WORKER_HTTP_PORT`): Redis answers, the store is writable, a model is set. */
export function createWorkerHealth(options: WorkerHealthOptions): WorkerHealthEndpoints {
  const now = options.now ?? Date.now;
  const started = now();
  const redis = new RedisProbe(options.redisUrl, options.logger);
  const checks = {
    redis: redis.check,
    store: storeCheck(options.store),
    model: async () => (options.model === undefined ? { ok: false, detail: "HERMES_MODEL is not set" } : { ok: true, detail: options.model }),
  };
  return {
    async health() {
      return { status: options.isStopping() ? "stopping" : "ok", role: "worker", uptimeSeconds: Math.round((now() - started) / 1000), ...options.host.workerHealth() };
    },
    async readiness() {
      const report = unreadyWhileStopping(await runReadinessChecks(checks), options.isStopping());
      const mcpServers = options.mcpServers?.() ?? [];
      return { ...report, ...options.host.workerHealth(), ...(mcpServers.length > 0 && { mcpServers }) };
    },
    close() {
      redis.close();
    },
  };
}
