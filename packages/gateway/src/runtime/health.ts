import { PROMETHEUS_CONTENT_TYPE, type MetricsRegistry } from "@hermes/agent";
import type { GatewayHttpServer } from "../http/http-server.js";

export interface HealthReport {
  status: "ok" | "degraded" | "stopping";
  role: "gateway" | "worker";
  uptimeSeconds: number;
  [detail: string]: unknown;
}

/** `/healthz` (JSON; 200 while ok or degraded, 503 while stopping) and `/metrics` (Prometheus text). */
export function registerHealthRoutes(http: GatewayHttpServer, health: () => Promise<HealthReport>, metrics: MetricsRegistry): void {
  http.route("GET", "/healthz", async () => {
    const report = await health();
    return {
      status: report.status === "stopping" ? 503 : 200,
      body: `${JSON.stringify(report)}\n`,
      headers: { "content-type": "application/json" },
    };
  });
  http.route("GET", "/metrics", async () => ({
    status: 200,
    body: metrics.renderPrometheus(),
    headers: { "content-type": PROMETHEUS_CONTENT_TYPE },
  }));
}
