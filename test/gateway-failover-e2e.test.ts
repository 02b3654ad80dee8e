import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startLlmServer, type LlmServer } from "./fakes/llm-server.js";
import { ADA, startFakeTelegram, type FakeTelegram } from "./fakes/telegram/index.js";
import { httpUrl, startApp, type AppProcess } from "./support/app-process.js";
import { startRedis, type TestRedis } from "./support/redis-server.js";
import { runCli } from "./support/run-cli.js";
import { waitUntil } from "./support/wait-until.js";

const TOKEN = "123456:FAILOVER-e2e-token";
let llm: LlmServer;
let telegram: FakeTelegram;
let home: string;
const apps: AppProcess[] = [];
const cleanups: Array<() => Promise<void>> = [];

beforeEach(async () => {
  llm = await startLlmServer();
  telegram = await startFakeTelegram({ token: TOKEN });
  home = await mkdtemp(path.join(os.tmpdir(), "hermes-failover-"));
});
afterEach(async () => {
  for (const app of apps.splice(0)) {
    app.kill("SIGKILL");
    await app.exited;
  }
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await telegram.close();
  await llm.close();
  await rm(home, { recursive: true, force: true });
});

function baseEnv(apiRoot: string): Record<string, string> {
  return {
    HOME: home,
    HERMES_HOME: path.join(home, "state"),
    HERMES_BASE_URL: llm.baseUrl,
    HERMES_MODEL: "scripted-model",
    HERMES_API_KEY: "test-key",
    HERMES_HTTP_PORT: "0",
    TELEGRAM_BOT_TOKEN: TOKEN,
    TELEGRAM_API_ROOT: apiRoot,
    HERMES_ALLOWED_USERS: `telegram:${ADA.id}`,
  };
}

function start(name: "gateway" | "worker", env: Record<string, string>): AppProcess {
  const app = startApp(name, env);
  apps.push(app);
  return app;
}

/** The value of one series in a gateway's /metrics. */
async function metric(base: string, series: string): Promise<number | undefined> {
  const line = (await (await fetch(`${base}/metrics`)).text()).split("\n").find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

interface CountingProxy {
  readonly apiRoot: string;
  /** getUpdates calls that came through this proxy: how we tell which gateway polls Telegram. */
  polls(): number;
}

/** Forwards one gateway's Bot API calls to the stand-in Telegram, counting its long polls. */
async function countingProxy(target: string): Promise<CountingProxy> {
  const upstream = new URL(target);
  let polls = 0;
  const sockets = new Set<Socket>();
  const server = http.createServer((request, response) => {
    if (request.url?.endsWith("/getUpdates")) polls += 1;
    const forward = http.request({ host: upstream.hostname, port: upstream.port, path: request.url, method: request.method, headers: request.headers }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    forward.on("error", () => response.destroy());
    // A killed gateway's held long poll must end at the stand-in too, as it would at Telegram.
    response.on("close", () => forward.destroy());
    request.pipe(forward);
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { apiRoot: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, polls: () => polls };
}

describe("one active gateway per HERMES_HOME (embedded mode)", () => {
  it("refuses a second npm start with exit code 2 naming the running one, and frees the home on a clean stop", async () => {
    const first = start("gateway", baseEnv(telegram.apiRoot));
    await first.waitFor('"msg":"gateway started"');
    const lockFile = path.join(home, "state", "gateway.lock");
    expect(existsSync(lockFile)).toBe(true);

    const second = start("gateway", baseEnv(telegram.apiRoot));
    expect((await second.exited).code).toBe(2);
    const refusal = second.stderr().trim();
    expect(refusal.split("\n")).toHaveLength(1);
    expect(refusal).toContain(`pid ${first.child.pid}`);
    expect(refusal).toMatch(/since \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/);

    first.kill("SIGTERM");
    expect(await first.exited).toEqual({ code: 0, signal: null });
    expect(existsSync(lockFile)).toBe(false);
  }, 60_000);
});

describe("npm run chat beside npm start", () => {
  it("leaves the Telegram message the gateway is running alone, and answers its own console message", async () => {
    const gateway = start("gateway", baseEnv(telegram.apiRoot));
    await gateway.waitFor('"msg":"gateway started"');
    // The Telegram answer hangs, so its message is still running in the gateway when the chat starts and recovers.
    llm.enqueue({ kind: "hang" }, { kind: "text", text: "Console answer." });
    telegram.userWrites({ from: ADA, text: "Take your time" });
    await waitUntil(() => llm.requests.length === 1, "the Telegram run to start");

    const chat = await runCli(["chat"], { env: baseEnv(telegram.apiRoot), stdin: "Hello from the terminal\n", timeoutMs: 40_000 });
    expect(chat.stdout).toBe("Console answer.\n");
    expect(chat.code).toBe(0);
    // Had the chat taken up the Telegram message too, it would have asked the model a third time.
    expect(llm.requests).toHaveLength(2);
    expect(JSON.stringify(llm.requests[1]?.messages)).toContain("Hello from the terminal");
    expect(telegram.sentTo(ADA.id)).toEqual([]);
  }, 60_000);
});

describe("hot standby with REDIS_URL", () => {
  let redis: TestRedis;
  beforeEach(async () => {
    redis = await startRedis();
    cleanups.push(() => redis.stop());
  });

  it("keeps one gateway polling Telegram; after a SIGKILL the standby takes over and answers once", async () => {
    const proxyA = await countingProxy(telegram.apiRoot);
    const proxyB = await countingProxy(telegram.apiRoot);
    const env = (apiRoot: string): Record<string, string> => ({ ...baseEnv(apiRoot), REDIS_URL: redis.url });
    await start("worker", env(telegram.apiRoot)).waitFor("worker started");

    const a = start("gateway", env(proxyA.apiRoot));
    await a.waitFor("became the active gateway");
    await a.waitFor('"msg":"gateway started"');
    const b = start("gateway", env(proxyB.apiRoot));
    await b.waitFor('"msg":"gateway started"');
    expect(b.stderr()).toContain("standing by: another gateway is active");

    const standbyUrl = httpUrl(b);
    const health = (await (await fetch(`${standbyUrl}/healthz`)).json()) as Record<string, unknown>;
    expect(health).toMatchObject({ status: "ok", role: "standby", activeGateway: { pid: a.child.pid } });
    const ready = await fetch(`${standbyUrl}/readyz`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { checks: Record<string, { ok: boolean; detail: string }> }).checks.gateway).toMatchObject({ ok: false, detail: expect.stringContaining("standby") });
    const activeReady = (await (await fetch(`${httpUrl(a)}/readyz`)).json()) as { checks: Record<string, unknown> };
    expect(activeReady.checks.gateway).toEqual({ ok: true, detail: "active" });
    expect(await metric(standbyUrl, "hermes_gateway_active")).toBe(0);
    expect(await metric(httpUrl(a), "hermes_gateway_active")).toBe(1);

    llm.enqueue({ kind: "text", text: "Answer before the crash." }, { kind: "text", text: "Answer after the takeover." });
    telegram.userWrites({ from: ADA, text: "First question" });
    await waitUntil(() => telegram.sentTo(ADA.id).some((sent) => sent.visible.includes("Answer before the crash.")), "the first answer");
    expect(proxyA.polls()).toBeGreaterThan(0);
    expect(proxyB.polls()).toBe(0);

    // The kill comes when A has recorded the first reply as sent: a reply caught mid-send would be freed from the dead
    // process's claim at the takeover and sent again (at least once, as the README says for Telegram).
    const activeUrl = httpUrl(a);
    await waitUntil(async () => ((await (await fetch(`${activeUrl}/healthz`)).json()) as { pendingDeliveries: number }).pendingDeliveries === 0, "the first reply to be recorded as sent");
    a.kill("SIGKILL");
    await a.exited;
    telegram.userWrites({ from: ADA, text: "Second question" });
    await b.waitFor("became the active gateway", 30_000);
    await waitUntil(() => telegram.sentTo(ADA.id).some((sent) => sent.visible.includes("Answer after the takeover.")), "the answer after the takeover");
    expect(proxyB.polls()).toBeGreaterThan(0);
    expect(await metric(standbyUrl, "hermes_gateway_active")).toBe(1);

    // Settled: nothing left to deliver and the runs done, so a second copy would already have been sent.
    await waitUntil(async () => ((await (await fetch(`${standbyUrl}/healthz`)).json()) as { pendingDeliveries: number }).pendingDeliveries === 0, "deliveries to drain");
    const texts = telegram.sentTo(ADA.id).map((sent) => sent.visible);
    expect(texts.filter((text) => text.includes("Answer before the crash."))).toHaveLength(1);
    expect(texts.filter((text) => text.includes("Answer after the takeover."))).toHaveLength(1);
    expect(llm.requests).toHaveLength(2);

    b.kill("SIGTERM");
    expect(await b.exited).toEqual({ code: 0, signal: null });
  }, 120_000);
});
