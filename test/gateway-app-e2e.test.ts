import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startLlmServer, type LlmServer } from "./fakes/llm-server.js";
import { ADA, startFakeTelegram, type FakeTelegram } from "./fakes/telegram/index.js";
import { startApp, type AppProcess } from "./support/app-process.js";
import { waitUntil } from "./support/wait-until.js";

const TOKEN = "123456:APP-e2e-token";
let llm: LlmServer;
let telegram: FakeTelegram;
let home: string;
let app: AppProcess | undefined;

beforeEach(async () => {
  llm = await startLlmServer();
  telegram = await startFakeTelegram({ token: TOKEN });
  home = await mkdtemp(path.join(os.tmpdir(), "hermes-app-"));
});
afterEach(async () => {
  app?.kill("SIGKILL");
  if (app) await app.exited;
  app = undefined;
  await telegram.close();
  await llm.close();
  await rm(home, { recursive: true, force: true });
});

describe("npm start (the gateway process)", () => {
  it("answers on Telegram, serves /healthz and /metrics, and stops gracefully on a doubled SIGTERM", async () => {
    app = startApp("gateway", {
      HOME: home,
      HERMES_HOME: path.join(home, "state"),
      HERMES_BASE_URL: llm.baseUrl,
      HERMES_MODEL: "scripted-model",
      HERMES_API_KEY: "test-key",
      HERMES_HTTP_PORT: "0",
      TELEGRAM_BOT_TOKEN: TOKEN,
      TELEGRAM_API_ROOT: telegram.apiRoot,
      HERMES_ALLOWED_USERS: `telegram:${ADA.id}`,
    });
    await app.waitFor('"msg":"gateway started"');
    const url = /"http":"(http:\/\/[^"]+)"/.exec(app.stderr())?.[1];
    expect(url).toBeDefined();

    llm.enqueue({ kind: "tools", calls: [{ name: "think", arguments: { thought: "greet" } }] }, { kind: "text", text: "Hello **Ada**!" });
    telegram.userWrites({ from: ADA, text: "Hi bot" });
    await waitUntil(() => telegram.sentTo(ADA.id).length > 0, "the reply");
    expect(telegram.sentTo(ADA.id)[0]?.text).toContain("Hello");

    const health = (await (await fetch(`${url}/healthz`)).json()) as { status: string; platforms: Record<string, unknown> };
    expect(health).toMatchObject({ status: "ok", role: "gateway", mode: "inline", platforms: { telegram: { state: "connected", lastError: null } }, pendingDeliveries: 0 });
    let metrics = "";
    // The run's duration is observed as it settles, which may land just after the reply.
    for (const deadline = Date.now() + 10_000; !metrics.includes("hermes_run_duration_seconds_count") && Date.now() < deadline; ) {
      metrics = await (await fetch(`${url}/metrics`)).text();
    }
    expect(metrics).toMatch(/hermes_gateway_messages_received_total\{platform="telegram"\} 1/);
    expect(metrics).toMatch(/hermes_agent_llm_calls_total\{[^}]*\} 2/);
    expect(metrics).toContain('hermes_run_duration_seconds_count{outcome="done"} 1\n');
    expect(metrics).toMatch(/hermes_llm_tokens_total\{direction="input",model="scripted-model"\} \d+/);
    expect(metrics).toContain('hermes_adapter_up{platform="telegram"} 1\n');

    app.kill("SIGTERM");
    app.kill("SIGTERM");
    expect(await app.exited).toEqual({ code: 0, signal: null });
  }, 60_000);

  it("exits 2 naming the setting when the configuration is invalid", async () => {
    app = startApp("gateway", { HOME: home, HERMES_HOME: path.join(home, "state"), HERMES_HTTP_PORT: "not-a-port" });
    const exited = await app.exited;
    expect(exited.code).toBe(2);
    expect(app.stderr()).toContain("HERMES_HTTP_PORT");
    expect(app.stderr()).not.toMatch(/\n\s+at /);
  });

  it("exits 2 naming HERMES_HTTP_PORT when the port is taken", async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      app = startApp("gateway", { HOME: home, HERMES_HOME: path.join(home, "state"), HERMES_BASE_URL: llm.baseUrl, HERMES_MODEL: "scripted-model", HERMES_HTTP_PORT: String(port) });
      const exited = await app.exited;
      expect(exited.code).toBe(2);
      expect(app.stderr()).toContain("HERMES_HTTP_PORT");
      expect(app.stderr()).toContain("already in use");
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });

  it("exits 2 with what to set when no model is configured", async () => {
    app = startApp("gateway", { HOME: home, HERMES_HOME: path.join(home, "state"), HERMES_HTTP_PORT: "0" });
    const exited = await app.exited;
    expect(exited.code).toBe(2);
    expect(app.stderr()).toContain("HERMES_MODEL=");
  });
});
