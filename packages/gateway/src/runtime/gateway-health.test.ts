import { createMetricsRegistry, silentLogger } from "@hermes/agent";
import { openStore, type Store } from "@hermes/store";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createGatewayHealth, type GatewayHealth } from "./gateway-health.js";
import { createGatewayMetrics } from "./gateway-metrics.js";
import type { GatewayRole } from "./gateway-election.js";
import type { GatewayLeaseHolder } from "./gateway-lease.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(options: { redisUrl?: string; election?: { role: () => GatewayRole; activeGateway: () => GatewayLeaseHolder | undefined } } = {}): Promise<{ health: GatewayHealth; store: Store; stop: () => void; scrape: () => Promise<string> }> {
  const folder = await mkdtemp(path.join(os.tmpdir(), "hermes-gw-health-"));
  cleanups.push(() => rm(folder, { recursive: true, force: true }));
  const store = await openStore({ file: path.join(folder, "state.db") });
  cleanups.push(() => store.close());
  const registry = createMetricsRegistry();
  const metrics = createGatewayMetrics(registry, { store, waitingRuns: async () => 2, pendingDeliveries: () => store.deliveries.countPending() });
  let stopping = false;
  const health = createGatewayHealth({ platforms: ["telegram"], store, mode: "inline", metrics, logger: silentLogger, isStopping: () => stopping, ...options });
  cleanups.push(() => health.close());
  return { health, store, stop: () => (stopping = true), scrape: () => registry.renderPrometheus() };
}

describe("createGatewayHealth", () => {
  it("reports liveness with each platform's state and the pending deliveries", async () => {
    const { health, store } = await setUp();
    await store.deliveries.enqueue({ platform: "telegram", chatId: "1", text: "hi", kind: "notice" });
    expect(await health.health()).toMatchObject({
      status: "ok",
      role: "gateway",
      mode: "inline",
      platforms: { telegram: { state: "connecting", lastError: null } },
      pendingDeliveries: 1,
    });
  });

  it("is ready once every platform is connected and the store writable, and unready while stopping", async () => {
    const { health, stop } = await setUp();
    expect(await health.readiness()).toMatchObject({ status: "unready", checks: { telegram: { ok: false, detail: "connecting" }, store: { ok: true } } });
    health.platforms.report("telegram", { state: "connected" });
    expect(await health.readiness()).toEqual({
      status: "ready",
      checks: { telegram: { ok: true, detail: "connected" }, store: { ok: true, detail: "writable" } },
      platforms: { telegram: expect.objectContaining({ state: "connected" }) },
    });
    stop();
    expect(await health.readiness()).toMatchObject({ status: "unready", checks: { process: { ok: false, detail: "stopping" } } });
    expect((await health.health()).status).toBe("stopping");
  });

  it("checks Redis when REDIS_URL is set, naming where it looked", async () => {
    const { health } = await setUp({ redisUrl: "redis://127.0.0.1:1" });
    health.platforms.report("telegram", { state: "connected" });
    const report = await health.readiness();
    expect(report.status).toBe("unready");
    expect(report.checks.redis).toMatchObject({ ok: false, detail: expect.stringMatching(/^127\.0\.0\.1:1 /) });
  });

  it("shows a standby as alive but unready, naming the active gateway, and ready once it becomes active", async () => {
    let role: GatewayRole = "standby";
    const active = { pid: 4242, host: "box-a", since: "2026-01-02T03:04:05.000Z" };
    const { health } = await setUp({ election: { role: () => role, activeGateway: () => (role === "standby" ? active : undefined) } });
    expect(await health.health()).toMatchObject({ status: "ok", role: "standby", activeGateway: active });
    expect(await health.readiness()).toMatchObject({
      status: "unready",
      checks: { gateway: { ok: false, detail: "standby; active: pid 4242 on box-a since 2026-01-02T03:04:05.000Z" } },
    });
    role = "active";
    health.platforms.report("telegram", { state: "connected" });
    expect(await health.health()).toMatchObject({ status: "ok", role: "gateway" });
    expect(await health.health()).not.toHaveProperty("activeGateway");
    expect(await health.readiness()).toMatchObject({ status: "ready", checks: { gateway: { ok: true, detail: "active" } } });
  });

  it("feeds hermes_adapter_up and the scrape-time gauges", async () => {
    const { health, store, scrape } = await setUp();
    await store.deliveries.enqueue({ platform: "telegram", chatId: "1", text: "hi", kind: "notice" });
    health.platforms.report("telegram", { state: "connected" });
    const text = await scrape();
    expect(text).toContain('hermes_adapter_up{platform="telegram"} 1\n');
    expect(text).toContain("hermes_queue_waiting 2\n");
    expect(text).toContain("hermes_deliveries_pending 1\n");
    expect(text).toContain("hermes_store_up 1\n");
  });
});
