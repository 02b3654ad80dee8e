import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startLlmServer, type LlmServer } from "./fakes/llm-server.js";
import { startApp, type AppProcess } from "./support/app-process.js";
import { startRedis, type TestRedis } from "./support/redis-server.js";
import { runCli } from "./support/run-cli.js";

let llm: LlmServer;
let home: string;
let redis: TestRedis | undefined;
const apps: AppProcess[] = [];

beforeEach(async () => {
  llm = await startLlmServer();
  home = await mkdtemp(path.join(os.tmpdir(), "hermes-limits-"));
});
afterEach(async () => {
  for (const app of apps.splice(0)) {
    app.kill("SIGKILL");
    await app.exited;
  }
  await llm.close();
  await redis?.stop();
  redis = undefined;
  await rm(home, { recursive: true, force: true });
});

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    HOME: home,
    HERMES_HOME: path.join(home, "state"),
    HERMES_BASE_URL: llm.baseUrl,
    HERMES_MODEL: "scripted-model",
    HERMES_API_KEY: "test-key",
    HERMES_HTTP_PORT: "0",
    ...extra,
  };
}

describe("limit settings in the real processes", () => {
  it.each([
    ["gateway", "HERMES_RATE_LIMIT", "fast"],
    ["gateway", "HERMES_MODEL_PRICE", "cheap"],
    ["worker", "HERMES_DAILY_BUDGET_USD", "-1"],
    ["worker", "HERMES_MAX_QUEUED", "lots"],
  ] as const)("%s exits 2 naming %s=%j, without a stack trace", async (name, setting, value) => {
    const app = startApp(name, env({ [setting]: value, REDIS_URL: "redis://127.0.0.1:9" }));
    apps.push(app);
    expect((await app.exited).code).toBe(2);
    expect(app.stderr()).toContain(setting);
    expect(app.stderr()).not.toMatch(/\n\s+at /);
  });

  it("with REDIS_URL the worker checks the budget: after the first answer the model is not called again", async () => {
    redis = await startRedis();
    const settings = env({ REDIS_URL: redis.url, HERMES_DAILY_BUDGET_USD: "0.001", HERMES_MODEL_PRICE: "1000,1000" });
    const worker = startApp("worker", { ...settings, HERMES_WORKER_HTTP_PORT: "0" });
    apps.push(worker);
    await worker.waitFor("worker started");
    llm.enqueue({ kind: "text", text: "First answer.", usage: { prompt: 10, completion: 5 } }, { kind: "text", text: "Never sent." });

    const chat = await runCli(["chat"], { env: settings, stdin: "first question\nsecond question\n/usage\n", timeoutMs: 60_000 });
    const [first, refused, usage] = chat.stdout.trim().split("\n");
    expect(first).toBe("First answer.");
    expect(refused).toMatch(/^You've reached today's budget \(\$0\.0150 of \$0\.0010\), so I can't answer until it resets at 00:00 UTC, in /);
    expect(usage).toMatch(/^Today: \$0\.0150 of \$0\.0010 \(reached; /);
    expect(chat.code).toBe(0);
    expect(llm.requests).toHaveLength(1);
    // The worker ran the refused message, so its /metrics counts it.
    const listening = worker.stderr().split("\n").find((line) => line.includes("worker http listening")) ?? "";
    const url = /"url":"(http:\/\/[^"]+)"/.exec(listening)?.[1];
    expect(url).toBeDefined();
    expect(await (await fetch(`${url}/metrics`)).text()).toContain('hermes_budget_refusals_total{platform="console"} 1\n');
  }, 90_000);
});
