import { mkdtemp, rm } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startDiscordFake, type DiscordFake } from "./fakes/discord/index.js";
import { startLlmServer, type LlmServer } from "./fakes/llm-server.js";
import { startFakeTelegram, type FakeTelegram } from "./fakes/telegram/index.js";
import { startApp, type AppProcess } from "./support/app-process.js";
import { startRedis, type TestRedis } from "./support/redis-server.js";

/** The promise: a lost platform shows in /readyz and the metrics within 10 s. */
const REPORTED_WITHIN_MS = 10_000;
const TELEGRAM_TOKEN = "123456:HEALTH-e2e-token";
const METRICS_TOKEN = "scrape-me-7f3a";

let llm: LlmServer;
let home: string;
const apps: AppProcess[] = [];
const cleanups: Array<() => Promise<void>> = [];

beforeEach(async () => {
  llm = await startLlmServer();
  home = await mkdtemp(path.join(os.tmpdir(), "hermes-health-"));
});
afterEach(async () => {
  for (const app of apps.splice(0)) {
    app.kill("SIGKILL");
    await app.exited;
  }
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await llm.close();
  await rm(home, { recursive: true, force: true });
});

function baseEnv(): Record<string, string> {
  return { HOME: home, HERMES_HOME: path.join(home, "state"), HERMES_BASE_URL: llm.baseUrl, HERMES_MODEL: "scripted-model", HERMES_API_KEY: "test-key" };
}

async function startGateway(env: Record<string, string>): Promise<string> {
  const app = startApp("gateway", { ...baseEnv(), HERMES_HTTP_PORT: "0", ...env });
  apps.push(app);
  await app.waitFor('"msg":"gateway started"');
  const url = /"http":"(http:\/\/[^"]+)"/.exec(app.stderr())?.[1];
  if (url === undefined) throw new Error(`no HTTP address in the log: ${app.stderr().slice(-2000)}`);
  return url;
}

interface Answer {
  status: number;
  body: string;
}

async function get(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(url, { headers });
  return { status: response.status, body: await response.text() };
}

/** Polls `url` until `check` accepts an answer; returns that answer. */
async function pollUntil(url: string, check: (answer: Answer) => boolean, what: string, timeoutMs: number, headers: Record<string, string> = {}): Promise<Answer> {
  const deadline = Date.now() + timeoutMs;
  let last: Answer | undefined;
  for (;;) {
    last = await get(url, headers);
    if (check(last)) return last;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last answer ${last.status}: ${last.body.slice(0, 1500)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface ReadyBody {
  status: string;
  checks: Record<string, { ok: boolean; detail: string }>;
  platforms: Record<string, { state: string; lastError: string | null; since: string }>;
}

describe("honest health of the gateway process", () => {
  it("turns /readyz 503 within 10 s when Telegram refuses the token (401) and back to 200 once it accepts it again", async () => {
    const telegram: FakeTelegram = await startFakeTelegram({ token: TELEGRAM_TOKEN });
    cleanups.push(() => telegram.close());
    const url = await startGateway({ TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN, TELEGRAM_API_ROOT: telegram.apiRoot });

    const ready = JSON.parse((await pollUntil(`${url}/readyz`, (a) => a.status === 200, "the first ready answer", 20_000)).body) as ReadyBody;
    expect(ready).toMatchObject({
      status: "ready",
      checks: { telegram: { ok: true, detail: "connected" }, store: { ok: true, detail: "writable" } },
      platforms: { telegram: { state: "connected", lastError: null } },
    });

    telegram.refuseToken(true);
    const unready = JSON.parse((await pollUntil(`${url}/readyz`, (a) => a.status === 503, "/readyz to report the refused token", REPORTED_WITHIN_MS)).body) as ReadyBody;
    expect(unready.status).toBe("unready");
    expect(unready.checks.telegram?.ok).toBe(false);
    expect(unready.checks.telegram?.detail).toMatch(/401/);
    expect(unready.checks.store).toEqual({ ok: true, detail: "writable" });
    expect(unready.platforms.telegram?.state).toMatch(/^(retrying|failed)$/);
    expect(unready.platforms.telegram?.lastError).toMatch(/401/);

    // Liveness stays green: the process serves, it is the platform that is down.
    const live = await get(`${url}/healthz`);
    expect(live.status).toBe(200);
    expect(JSON.parse(live.body)).toMatchObject({ status: "ok", role: "gateway", platforms: { telegram: { lastError: expect.stringMatching(/401/) } } });
    const metrics = await get(`${url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.body).toContain('hermes_adapter_up{platform="telegram"} 0');

    telegram.refuseToken(false);
    const recovered = JSON.parse((await pollUntil(`${url}/readyz`, (a) => a.status === 200, "/readyz to recover", 60_000)).body) as ReadyBody;
    expect(recovered.checks.telegram).toEqual({ ok: true, detail: "connected" });
    // The cause stays visible after the recovery.
    expect(recovered.platforms.telegram?.lastError).toMatch(/401/);
  }, 120_000);

  it("shows a dropped Discord websocket as hermes_adapter_up 0, then 1 once it is back; /metrics needs the token when one is set", async () => {
    const discord: DiscordFake = await startDiscordFake();
    cleanups.push(() => discord.close());
    const url = await startGateway({ DISCORD_BOT_TOKEN: discord.token, DISCORD_API_URL: discord.apiUrl, HERMES_METRICS_TOKEN: METRICS_TOKEN });
    const bearer = { authorization: `Bearer ${METRICS_TOKEN}` };

    const refused = await fetch(`${url}/metrics`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(await refused.text()).not.toContain("hermes_");
    expect((await get(`${url}/metrics`, { authorization: "Bearer not-the-token" })).status).toBe(401);

    const up = await pollUntil(`${url}/metrics`, (a) => a.body.includes('hermes_adapter_up{platform="discord"} 1'), "Discord to connect", 20_000, bearer);
    for (const family of ["process_resident_memory_bytes", "nodejs_eventloop_lag_seconds", "hermes_queue_waiting 0", "hermes_deliveries_pending 0", "# TYPE hermes_run_duration_seconds histogram", "# TYPE hermes_llm_tokens_total counter", "# TYPE hermes_llm_cost_usd_total counter"]) {
      expect(up.body).toContain(family);
    }

    // The fake holds back HELLO, so the reconnect cannot finish until it is released.
    discord.holdHello();
    discord.dropConnection({ abrupt: true });
    await pollUntil(`${url}/metrics`, (a) => a.body.includes('hermes_adapter_up{platform="discord"} 0'), "hermes_adapter_up to drop", REPORTED_WITHIN_MS, bearer);
    const unready = JSON.parse((await get(`${url}/readyz`)).body) as ReadyBody;
    expect(unready.status).toBe("unready");
    expect(unready.checks.discord?.ok).toBe(false);

    discord.releaseHello();
    await pollUntil(`${url}/metrics`, (a) => a.body.includes('hermes_adapter_up{platform="discord"} 1'), "hermes_adapter_up to come back", 60_000, bearer);
    expect((await get(`${url}/readyz`)).status).toBe(200);
  }, 120_000);
});

describe("honest health of a worker (HERMES_WORKER_HTTP_PORT)", () => {
  it("answers /readyz 200 with Redis, store and model, and 503 naming Redis once it is gone", async () => {
    const redis: TestRedis = await startRedis();
    cleanups.push(() => redis.stop());
    const worker = startApp("worker", { ...baseEnv(), REDIS_URL: redis.url, HERMES_WORKER_HTTP_PORT: "0" });
    apps.push(worker);
    await worker.waitFor('"msg":"worker started"');
    const url = /"url":"(http:\/\/[^"]+)"/.exec(worker.stderr())?.[1];
    expect(url).toBeDefined();

    const ready = await pollUntil(`${url}/readyz`, (a) => a.status === 200, "the worker to be ready", 20_000);
    expect(JSON.parse(ready.body)).toMatchObject({
      status: "ready",
      checks: { redis: { ok: true }, store: { ok: true, detail: "writable" }, model: { ok: true, detail: "scripted-model" } },
    });
    const live = await get(`${url}/healthz`);
    expect(live.status).toBe(200);
    expect(JSON.parse(live.body)).toMatchObject({ status: "ok", role: "worker" });
    const metrics = await get(`${url}/metrics`);
    expect(metrics.body).toContain("process_resident_memory_bytes");
    expect(metrics.body).toContain("hermes_store_up 1\n");

    await redis.stop();
    const unready = JSON.parse((await pollUntil(`${url}/readyz`, (a) => a.status === 503, "the worker to notice Redis is gone", REPORTED_WITHIN_MS)).body) as ReadyBody;
    expect(unready.checks.redis?.ok).toBe(false);
    expect(unready.checks.redis?.detail).toContain(redis.url.replace("redis://", ""));
    expect(unready.checks.store).toEqual({ ok: true, detail: "writable" });
    expect((await get(`${url}/healthz`)).status).toBe(200);
  }, 60_000);

  it("exits 2 naming HERMES_WORKER_HTTP_PORT when that port is taken", async () => {
    const redis: TestRedis = await startRedis();
    cleanups.push(() => redis.stop());
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
    const port = (blocker.address() as AddressInfo).port;
    const worker = startApp("worker", { ...baseEnv(), REDIS_URL: redis.url, HERMES_WORKER_HTTP_PORT: String(port) });
    apps.push(worker);
    expect((await worker.exited).code).toBe(2);
    expect(worker.stderr()).toContain("HERMES_WORKER_HTTP_PORT");
    expect(worker.stderr()).toContain(`127.0.0.1:${port} is already in use`);
    expect(worker.stderr()).not.toContain("unexpected failure");
  }, 60_000);
});
