import type { Logger, McpServerStatus } from "@hermes/agent";
import type { Store } from "@hermes/store";
import type { HealthReport } from "./health.js";
import { PlatformHealth } from "./platform-health.js";
import { platformCheck, runReadinessChecks, storeCheck, unreadyWhileStopping, type ReadinessCheck, type ReadinessReport } from "./readiness.js";
import { RedisProbe } from "./redis-probe.js";
import type { GatewayMetrics } from "./gateway-metrics.js";
import type { GatewayElection } from "./gateway-election.js";

export interface GatewayHealthOptions {
  platforms: readonly string[];
  store: Store;
  mode: "inline" | "bullmq";
  redisUrl?: string;
  /** Messages kept for the run queue while Redis does not answer (the intake relay's backlog). */
  relayBacklog?: () => number;
  metrics: GatewayMetrics;
  logger: Logger;
  /** Masked in the platforms' errors, which /healthz and /readyz serve. */
  secrets?: readonly string[];
  isStopping: () => boolean;
  /** With Redis: whether this gateway is the active one; /readyz then has a `gateway` check a standby fails. */
  election?: Pick<GatewayElection, "role" | "activeGateway">;
  /** With inline runs: the MCP servers' states, a /readyz detail that never makes it unready (the other tools work). */
  mcpServers?: () => McpServerStatus[];
  now?: () => number;
}

export interface GatewayHealth {
  readonly platforms: PlatformHealth;
  health(): Promise<HealthReport>;
  readiness(): Promise<ReadinessReport>;
  close(): void;
}

/** The gateway's liveness and readiness: each configured platform connected, the store writable, Redis answering. */
export function createGatewayHealth(options: GatewayHealthOptions): GatewayHealth {
  const now = options.now ?? Date.now;
  const started = now();
  const platforms = new PlatformHealth({ platforms: options.platforms, logger: options.logger, up: options.metrics.adapterUp, secrets: options.secrets, now });
  const redis = options.redisUrl === undefined ? undefined : new RedisProbe(options.redisUrl, options.logger);
  const checks: Record<string, ReadinessCheck> = {
    ...Object.fromEntries(options.platforms.map((platform) => [platform, platformCheck(platforms, platform)])),
    store: storeCheck(options.store),
    ...(redis && { redis: withRelayBacklog(redis.check, options.relayBacklog) }),
    ...(options.election && { gateway: electionCheck(options.election) }),
  };
  const standby = (): boolean => options.election?.role() === "standby";

  return {
    platforms,
    async health() {
      return {
        status: options.isStopping() ? "stopping" : "ok",
        role: standby() ? "standby" : "gateway",
        ...(standby() && { activeGateway: options.election?.activeGateway() ?? null }),
        uptimeSeconds: Math.round((now() - started) / 1000),
        mode: options.mode,
        platforms: platforms.snapshot(),
        pendingDeliveries: await options.store.deliveries.countPending().catch(() => null),
      };
    },
    async readiness() {
      const report = unreadyWhileStopping(await runReadinessChecks(checks), options.isStopping());
      const mcpServers = options.mcpServers?.() ?? [];
      return { ...report, platforms: platforms.snapshot(), ...(options.relayBacklog && { relayBacklog: options.relayBacklog() }), ...(mcpServers.length > 0 && { mcpServers }) };
    },
    close() {
      redis?.close();
    },
  };
}

/** A standby is alive but not ready, so a load balancer sends webhooks only to the active gateway. */
function electionCheck(election: Pick<GatewayElection, "role" | "activeGateway">): ReadinessCheck {
  return async () => {
    if (election.role() === "active") return { ok: true, detail: "active" };
    const active = election.activeGateway();
    return { ok: false, detail: active ? `standby; active: pid ${active.pid} on ${active.host} since ${active.since}` : "standby; no active gateway seen yet" };
  };
}

/** The Redis check names how many accepted messages wait for it, so an outage's effect on intake shows in /readyz. */
function withRelayBacklog(check: ReadinessCheck, backlog: (() => number) | undefined): ReadinessCheck {
  if (backlog === undefined) return check;
  return async () => {
    const result = await check();
    const waiting = backlog();
    return waiting === 0 ? result : { ...result, detail: `${result.detail}; ${waiting} message${waiting === 1 ? "" : "s"} kept for the run queue until it answers` };
  };
}
