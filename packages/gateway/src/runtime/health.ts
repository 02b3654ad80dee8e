import type { MetricsRegistry } from "@hermes/agent";
import { bearerMatches } from "../http/bearer-token.js";
import type { GatewayHttpServer } from "../http/http-server.js";
import type { ReadinessReport } from "./readiness.js";

export interface HealthReport {
  status: "ok" | "stopping";
  /** `standby`: a gateway waiting to take over from the active one (with Redis), serving nothing but HTTP probes. */
  role: "gateway" | "standby" | "worker";
  uptimeSeconds: number;
  [detail: string]: unknown;
}

export interface HealthRoutes {
  /** Liveness: answers while the process serves. */
  health: () => Promise<HealthReport>;
  /** Readiness: every configured part is up. */
  readiness: () => Promise<ReadinessReport>;
  metrics: MetricsRegistry;
  /** HERMES_METRICS_TOKEN: when set, /metrics needs `Authorization: Bearer <token>`. */
  metricsToken?: string;
}

const JSON_HEADERS = { "content-type": "application/json", "cache-control": "no-store" };

/**
 * `/healthz` (200 while serving, 503 while stopping), `/readyz` (200 when ready, 503 naming each failing part) and
 * `/metrics` (Prometheus text, behind a bearer token when one is configured).
 */
export function registerHealthRoutes(http: GatewayHttpServer, routes: HealthRoutes): void {
  http.route("GET", "/healthz", async () => {
    const report = await routes.health();
    return { status: report.status === "stopping" ? 503 : 200, body: `${JSON.stringify(report)}\n`, headers: JSON_HEADERS };
  });
  http.route("GET", "/readyz", async () => {
    const report = await routes.readiness();
    return { status: report.status === "ready" ? 200 : 503, body: `${JSON.stringify(report)}\n`, headers: JSON_HEADERS };
  });
  http.route("GET", "/metrics", async (request): Promise<{ status: number; body: string; headers: Record<string, string> }> => {
    if (routes.metricsToken !== undefined && !bearerMatches(request.headers.authorization, routes.metricsToken)) {
      return {
        status: 401,
        body: "unauthorized: /metrics needs Authorization: Bearer <HERMES_METRICS_TOKEN>\n",
        headers: { "content-type": "text/plain; charset=utf-8", "www-authenticate": 'Bearer realm="metrics"' },
      };
    }
    return { status: 200, body: await routes.metrics.renderPrometheus(), headers: { "content-type": routes.metrics.contentType } };
  });
}
