import type { Counter, MetricsRegistry } from "@hermes/agent";

export interface GatewayMetrics {
  received: Counter;
  deliveries: Counter;
  runs: Counter;
}

export function createGatewayMetrics(registry: MetricsRegistry): GatewayMetrics {
  return {
    received: registry.counter("gateway.messages_received", "Inbound messages accepted from platforms (after deduplication)."),
    deliveries: registry.counter("gateway.deliveries", "Outbound deliveries by outcome."),
    runs: registry.counter("gateway.runs_settled", "Agent runs finished, by outcome."),
  };
}
