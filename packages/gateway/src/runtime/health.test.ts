import { createMetricsRegistry, silentLogger } from "@hermes/agent";
import { afterEach, describe, expect, it } from "vitest";
import { bearerMatches } from "../http/bearer-token.js";
import { GatewayHttpServer } from "../http/http-server.js";
import { registerHealthRoutes, type HealthRoutes } from "./health.js";
import type { ReadinessReport } from "./readiness.js";

const servers: GatewayHttpServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop();
});

async function serve(overrides: Partial<HealthRoutes> = {}): Promise<string> {
  const metrics = createMetricsRegistry();
  metrics.counter("gateway.deliveries", "Deliveries.", ["outcome"]).inc(1, { outcome: "sent" });
  const http = new GatewayHttpServer({ host: "127.0.0.1", port: 0, logger: silentLogger });
  servers.push(http);
  registerHealthRoutes(http, {
    health: async () => ({ status: "ok", role: "gateway", uptimeSeconds: 3 }),
    readiness: async () => ({ status: "ready", checks: { store: { ok: true, detail: "writable" } } }),
    metrics,
    ...overrides,
  });
  const address = await http.start();
  return `http://127.0.0.1:${address.port}`;
}

describe("health routes", () => {
  it("answers /healthz 200 while serving and 503 while stopping", async () => {
    let status: "ok" | "stopping" = "ok";
    const url = await serve({ health: async () => ({ status, role: "gateway", uptimeSeconds: 1 }) });
    const live = await fetch(`${url}/healthz`);
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: "ok", role: "gateway", uptimeSeconds: 1 });
    status = "stopping";
    expect((await fetch(`${url}/healthz`)).status).toBe(503);
  });

  it("answers /readyz 200 when ready and 503 with the failing checks otherwise", async () => {
    let ready = true;
    const url = await serve({
      readiness: async (): Promise<ReadinessReport> =>
        ready
          ? { status: "ready", checks: { telegram: { ok: true, detail: "connected" } } }
          : { status: "unready", checks: { telegram: { ok: false, detail: "retrying: 401 Unauthorized" }, store: { ok: true, detail: "writable" } } },
    });
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    ready = false;
    const unready = await fetch(`${url}/readyz`);
    expect(unready.status).toBe(503);
    expect(unready.headers.get("content-type")).toBe("application/json");
    expect(await unready.json()).toEqual({
      status: "unready",
      checks: { telegram: { ok: false, detail: "retrying: 401 Unauthorized" }, store: { ok: true, detail: "writable" } },
    });
  });

  it("serves /metrics openly without a token", async () => {
    const url = await serve();
    const response = await fetch(`${url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(await response.text()).toContain('hermes_gateway_deliveries_total{outcome="sent"} 1');
  });

  it("requires the bearer token on /metrics when one is set, and only there", async () => {
    const url = await serve({ metricsToken: "scrape-secret" });
    for (const authorization of [undefined, "Bearer wrong", "Basic scrape-secret", "Bearer scrape-secret-and-more", "scrape-secret"]) {
      const refused = await fetch(`${url}/metrics`, { headers: authorization === undefined ? {} : { authorization } });
      expect(refused.status).toBe(401);
      expect(refused.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(await refused.text()).not.toContain("hermes_");
    }
    const allowed = await fetch(`${url}/metrics`, { headers: { authorization: "Bearer scrape-secret" } });
    expect(allowed.status).toBe(200);
    expect(await allowed.text()).toContain("hermes_gateway_deliveries_total");
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
  });
});

describe("bearerMatches", () => {
  it("accepts exactly `Bearer <token>` (scheme in any case)", () => {
    expect(bearerMatches("Bearer tok-1", "tok-1")).toBe(true);
    expect(bearerMatches("bearer tok-1", "tok-1")).toBe(true);
    expect(bearerMatches("Bearer tok-2", "tok-1")).toBe(false);
    expect(bearerMatches("Bearer tok-1 extra", "tok-1")).toBe(false);
    expect(bearerMatches("Bearer ", "tok-1")).toBe(false);
    expect(bearerMatches(undefined, "tok-1")).toBe(false);
  });
});
