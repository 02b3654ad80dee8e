import type { Counter, Gauge, Histogram, MetricsRegistry } from "@hermes/agent";

export interface GatewayMetrics {
  received: Counter;
  deliveries: Counter;
  runs: Counter;
  /** `hermes_adapter_up{platform}`: 1 while the platform is connected. */
  adapterUp: Gauge;
  /** `hermes_run_duration_seconds{outcome}`: from a message's arrival until its run settled. */
  runDuration: Histogram;
}

/** What the gateway's scrape-time gauges read. */
export interface GatewayMetricSources {
  /** Runs waiting to start. */
  waitingRuns: () => Promise<number>;
  /** Replies not yet delivered. */
  pendingDeliveries: () => Promise<number>;
}

/** Safe on a registry that already has them; the scrape-time gauges keep the sources they were first given. */
export function createGatewayMetrics(registry: MetricsRegistry, sources: GatewayMetricSources): GatewayMetrics {
  registry.gauge("queue_waiting", "Agent runs waiting to start (queued or delayed for a retry).", { collect: sources.waitingRuns });
  registry.gauge("deliveries_pending", "Replies waiting in the outbox to be delivered.", { collect: sources.pendingDeliveries });
  return {
    received: registry.counter("gateway.messages_received", "Inbound messages accepted from platforms (after deduplication).", ["platform"]),
    deliveries: registry.counter("gateway.deliveries", "Outbound deliveries by outcome.", ["outcome"]),
    runs: registry.counter("gateway.runs_settled", "Agent runs finished, by outcome.", ["outcome"]),
    adapterUp: registry.gauge("adapter_up", "1 while the platform adapter is connected, 0 while connecting, retrying or failed.", { labelNames: ["platform"] }),
    runDuration: registry.histogram("run_duration_seconds", "Seconds from a message's arrival until its agent run settled, by outcome (done, failed).", { labelNames: ["outcome"] }),
  };
}
