import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startLlmServer, type LlmServer } from "./fakes/llm-server.js";
import { startApp, type AppProcess } from "./support/app-process.js";
import { startRedis, type TestRedis } from "./support/redis-server.js";
import { runCli } from "./support/run-cli.js";

let redis: TestRedis;
let llm: LlmServer;
let home: string;
const apps: AppProcess[] = [];

beforeEach(async () => {
  redis = await startRedis();
  llm = await startLlmServer();
  home = await mkdtemp(path.join(os.tmpdir(), "hermes-bullmq-"));
});
afterEach(async () => {
  for (const app of apps.splice(0)) {
    app.kill("SIGKILL");
    await app.exited;
  }
  await llm.close();
  await redis.stop();
  await rm(home, { recursive: true, force: true });
});

function env(): Record<string, string> {
  return {
    HOME: home,
    HERMES_HOME: path.join(home, "state"),
    HERMES_BASE_URL: llm.baseUrl,
    HERMES_MODEL: "scripted-model",
    HERMES_API_KEY: "test-key",
    REDIS_URL: redis.url,
  };
}

async function worker(): Promise<AppProcess> {
  const app = startApp("worker", env());
  apps.push(app);
  await app.waitFor("worker started");
  return app;
}

describe("BullMQ workers on a real redis-server", () => {
  it("answers through a worker process, with history kept across chat restarts, and stops gracefully", async () => {
    const w = await worker();
    llm.enqueue(
      { kind: "tools", calls: [{ name: "think", arguments: { thought: "2+2" } }] },
      { kind: "text", text: "Four." },
      { kind: "text", text: "Forty." },
    );
    const first = await runCli(["chat"], { env: env(), stdin: "What is 2+2?\n", timeoutMs: 40_000 });
    expect(first.stdout).toBe("Four.\n");
    expect(first.code).toBe(0);
    const second = await runCli(["chat"], { env: env(), stdin: "And times ten?\n", timeoutMs: 40_000 });
    expect(second.stdout).toBe("Forty.\n");
    expect(JSON.stringify(llm.requests[2]?.messages)).toContain("What is 2+2?");
    w.kill("SIGTERM");
    w.kill("SIGTERM");
    expect(await w.exited).toEqual({ code: 0, signal: null });
  }, 90_000);

  it("delivers exactly one reply when the worker running it is killed with SIGKILL", async () => {
    const a = await worker();
    let calls = 0;
    llm.enqueue(
      () => {
        calls += 1;
        return { kind: "hang" };
      },
      { kind: "text", text: "Survived the crash." },
    );
    const chat = runCli(["chat"], { env: env(), stdin: "Do the long thing\n", timeoutMs: 80_000 });
    for (let i = 0; i < 400 && calls === 0; i += 1) await new Promise((r) => setTimeout(r, 25));
    expect(calls).toBe(1);
    a.kill("SIGKILL");
    await a.exited;
    await worker();
    const result = await chat;
    expect(result.stdout).toBe("Survived the crash.\n");
    expect(result.code).toBe(0);
    expect(llm.requests).toHaveLength(2);
  }, 90_000);
});
