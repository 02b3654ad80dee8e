import type { Counter, Gauge, Histogram, MetricsRegistry } from "@hermes/agent";
import type { WritableCheck } from "@hermes/store";
import type { GatewayRole } from "./gateway-election.js";
import { storeTakesWrites } from "./readiness.js";

export interface GatewayMetrics {
  received: Counter;
  deliveries: Counter;
  runs: Counter;
  /** `hermes_adapter_up{platform}`: 1 while the platform is connected. */
  adapterUp: Gauge;
  /** `hermes_run_duration_seconds{outcome}`: from a message's arrival until its run settled. */
  runDuration: Histogram;
  /** `hermes_intake_skipped_total{platform,reason}`: messages the bounded intake started no run for. */
  intakeSkipped: Counter;
  /** `hermes_deliveries_deferred_total{platform}`: replies the platform rate-limited (429), waiting out its retry_after. */
  deliveriesDeferred: Counter;
}

/** What the gateway's scrape-time gauges read. */
export interface GatewayMetricSources {
  /** The state database, for `hermes_store_up` (createStoreUpMetric). */
  store: { checkWritable(): Promise<WritableCheck> };
  /** Runs waiting to start. */
  waitingRuns: () => Promise<number>;
  /** Replies not yet delivered. */
  pendingDeliveries: () => Promise<number>;
  /** This gateway's role in the election (default: always active, as in embedded mode). */
  role?: () => GatewayRole;
  /** With Redis: runs the intake relay keeps while Redis does not answer; without it the series is absent. */
  keptRuns?: () => number;
}

/** Safe on a registry that already has them; the scrape-time gauges keep the sources they were first given. */
export function createGatewayMetrics(registry: MetricsRegistry, sources: GatewayMetricSources): GatewayMetrics {
  createStoreUpMetric(registry, sources.store);
  registry.gauge("queue_waiting", "Agent runs waiting to start (queued or delayed for a retry).", { collect: sources.waitingRuns });
  registry.gauge("deliveries_pending", "Replies waiting in the outbox to be delivered.", { collect: sources.pendingDeliveries });
  const role = sources.role;
  registry.gauge("gateway_active", "1 while this gateway is the active one (platform connections, delivery), 0 while it stands by.", { collect: () => (role === undefined || role() === "active" ? 1 : 0) });
  const kept = sources.keptRuns;
  if (kept) registry.gauge("run_queue_kept", "Accepted messages kept for the run queue while Redis does not answer; relayed once it does.", { collect: kept });
  return {
    received: registry.counter("gateway.messages_received", "Inbound messages accepted from platforms (after deduplication).", ["platform"]),
    deliveries: registry.counter("gateway.deliveries", "Outbound deliveries by outcome.", ["outcome"]),
    runs: registry.counter("gateway.runs_settled", "Agent runs finished, by outcome.", ["outcome"]),
    adapterUp: registry.gauge("adapter_up", "1 while the platform adapter is connected, 0 while connecting, retrying or failed.", { labelNames: ["platform"] }),
    runDuration: registry.histogram("run_duration_seconds", "Seconds from a message's arrival until its agent run settled, by outcome (done, failed).", { labelNames: ["outcome"] }),
    intakeSkipped: registry.counter("intake_skipped", "Messages that started no agent run because the sender was over HERMES_RATE_LIMIT (rate_limited) or their conversation over HERMES_MAX_QUEUED (queue_full).", ["platform", "reason"]),
    deliveriesDeferred: registry.counter("deliveries_deferred", "Reply sends the platform rate-limited (429); the reply waits out the retry_after in the outbox.", ["platform"]),
  };
}

/** Where the runs happen (the embedded gateway, each worker): how approval requests (HERMES_APPROVAL) ended. */
export function createApprovalsMetric(registry: MetricsRegistry): Counter {
  return registry.counter("approvals", "Tool calls that waited for the approval of the person who asked, by how the request ended.", ["tool", "outcome"]);
}

/** Under the registry's 1 s bound on a collect, which would otherwise keep showing the last value of a hung database. */
const STORE_SCRAPE_TIMEOUT_MS = 900;

/**
 * `hermes_store_up`: 1 while the state database (the SQLite file, or PostgreSQL) takes writes, 0 otherwise, probed
 * at each scrape as /readyz's store check is; a database that does not answer in time counts as down.
 */
export function createStoreUpMetric(registry: MetricsRegistry, store: { checkWritable(): Promise<WritableCheck> }): void {
  registry.gauge("store_up", "1 while the state database (SQLite or PostgreSQL) takes writes, 0 while it does not or does not answer; probed at each scrape.", {
    collect: async () => ((await storeTakesWrites(store, STORE_SCRAPE_TIMEOUT_MS)) ? 1 : 0),
  });
}

/**
 * `hermes_budget_refusals_total{platform}`: messages answered without the model because the sender's daily budget
 * (HERMES_DAILY_BUDGET_USD) was used up. Counted where runs happen: the embedded gateway, or each worker with Redis.
 */
export function createBudgetRefusalsMetric(registry: MetricsRegistry): Counter {
  return registry.counter("budget_refusals", "Messages answered without a model call because the sender's daily budget (HERMES_DAILY_BUDGET_USD) was reached.", ["platform"]);
}
