import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { silentLogger } from "@hermes/agent";
import type { GatewayConfig } from "@hermes/gateway";
import { openStore } from "@hermes/store";
import { createTelegramAdapter } from "@hermes/telegram";
import { startFakeTelegram, type FakeTelegram, type SentMessage } from "./fakes/telegram/index.js";
import type { RecordedRequest } from "./fakes/llm-server.js";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.js";
import { startLlmServer } from "./fakes/llm-server.js";
import { startApp, type AppProcess } from "./support/app-process.js";
import { startRedis } from "./support/redis-server.js";
import { runCli } from "./support/run-cli.js";

const TOKEN = "123456:TEST-token";
const DM_KEY = "agent:main:telegram:dm:7";
/** The stand-in's messages and the store are polled; the scheduled run itself comes seconds after its creation. */
const SLOW_MACHINE = { timeout: 25_000, interval: 50 };

let fake: FakeTelegram | undefined;
let h: GatewayHarness | undefined;
afterEach(async () => {
  await h?.close();
  await fake?.close();
  h = fake = undefined;
});

async function start(): Promise<{ fake: FakeTelegram; h: GatewayHarness }> {
  const telegram = (fake = await startFakeTelegram({ token: TOKEN }));
  const adapters = (config: GatewayConfig) => {
    if (!config.telegram) throw new Error("TELEGRAM_BOT_TOKEN did not configure Telegram");
    return [createTelegramAdapter(config.telegram, { logger: silentLogger, attachmentsDir: path.join(config.paths.workspace, "attachments", "telegram") })];
  };
  h = await startGatewayHarness({ TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_ROOT: telegram.apiRoot, HERMES_ALLOWED_USERS: "telegram:7" }, undefined, { adapters });
  return { fake: telegram, h };
}

async function waitForSent(telegram: FakeTelegram, visible: string): Promise<SentMessage> {
  let found: SentMessage | undefined;
  await vi.waitFor(() => {
    found = telegram.sentTo(7).find((message) => message.visible === visible);
    if (!found) throw new Error(`timed out waiting for "${visible}"`);
  }, SLOW_MACHINE);
  if (!found) throw new Error(`timed out waiting for "${visible}"`);
  return found;
}

/** The model schedules a one-shot job from the DM, then confirms it. */
async function scheduleFromDm(telegram: FakeTelegram, harness: GatewayHarness, schedule: string): Promise<void> {
  harness.llm.enqueue(
    { kind: "tools", calls: [{ name: "cronjob", arguments: { action: "create", schedule, prompt: "say ping" } }] },
    { kind: "text", text: "Scheduled." },
    { kind: "text", text: "pong" },
  );
  const { update } = telegram.userWrites({ text: `ping me ${schedule}` });
  await telegram.waitForConfirmation(update);
  await waitForSent(telegram, "Scheduled.");
}

/** What the gateway itself posts when the model creates a task: the chat hears of it whatever the model says. */
function creationNotice(id: string | undefined, schedule: string): string {
  return `Scheduled task ${id} created: ${schedule} — “say ping”. /cron remove ${id} cancels it.`;
}
function anyCreationNotice(schedule: string): unknown {
  return expect.stringMatching(new RegExp(`^Scheduled task [a-z0-9]{8} created: ${schedule} — “say ping”\\. /cron remove [a-z0-9]{8} cancels it\\.$`));
}

function userTexts(request: RecordedRequest | undefined): string {
  return JSON.stringify((request?.messages ?? []).filter((m) => (m as { role: string }).role === "user"));
}

async function onlyJob(harness: GatewayHarness) {
  const jobs = await harness.gateway.store.cronJobs.listAll();
  expect(jobs).toHaveLength(1);
  return jobs[0];
}

describe("scheduled tasks on Telegram (grammY against the stand-in)", () => {
  it("runs a job the model scheduled from a DM and delivers its answer to that chat, in a fresh conversation", async () => {
    const { fake, h } = await start();
    await scheduleFromDm(fake, h, "in 2s");
    const job = await onlyJob(h);
    expect(job).toMatchObject({ platform: "telegram", chatId: "7", chatType: "dm", creatorId: "7", sessionKey: DM_KEY, kind: "once", prompt: "say ping" });
    expect(JSON.stringify(h.llm.requests[0]?.tools)).toContain('"cronjob"');

    const pong = await waitForSent(fake, "pong");
    expect(pong.chatId).toBe("7");
    await vi.waitFor(async () => expect(await h.gateway.store.cronJobs.get(job?.id ?? "")).toMatchObject({ lastStatus: "ran", nextRunAt: null, runs: 1 }), SLOW_MACHINE);
    await h.gateway.waitIdle(`agent:main:cron:${job?.id}`);
    // The job's run saw its prompt, not the conversation it was created in.
    const run = h.llm.requests[2];
    expect(userTexts(run)).toContain("say ping");
    expect(userTexts(run)).not.toContain("ping me");
    expect(fake.sentTo(7).map((m) => m.visible)).toEqual([creationNotice(job?.id, "in 2s"), "Scheduled.", "pong"]);
  });

  it("delivers a job's answer exactly once across a gateway restart right after it was scheduled", async () => {
    const { fake, h } = await start();
    await scheduleFromDm(fake, h, "in 3s");
    const job = await onlyJob(h);
    await h.restart();

    await waitForSent(fake, "pong");
    await vi.waitFor(async () => expect(await h.gateway.store.cronJobs.get(job?.id ?? "")).toMatchObject({ lastStatus: "ran", nextRunAt: null, runs: 1 }), SLOW_MACHINE);
    await h.gateway.waitIdle(`agent:main:cron:${job?.id}`);
    expect(h.llm.requests).toHaveLength(3);
    expect(fake.sentTo(7).filter((m) => m.visible === "pong")).toHaveLength(1);
  });
});

describe("scheduled tasks of a person no longer allowed", () => {
  it("skips the job of a creator whose pairing was revoked, while an allowed creator's job runs", async () => {
    h = await startGatewayHarness({ HERMES_ALLOWED_USERS: "telegram:7" });
    const store = h.gateway.store;
    await store.pairing.approve({ platform: "telegram", userId: "9" }, Date.now());
    await store.pairing.revoke("telegram", "9");
    const revoked = { id: "rev0ked1", platform: "telegram", chatId: "900", chatType: "dm" as const, creatorId: "9", sessionKey: "agent:main:telegram:dm:900", schedule: "every 1h", kind: "every" as const, prompt: "say secret", nextRunAt: Date.now() - 1_000, createdAt: Date.now() - 3_600_000 };
    await store.cronJobs.create(revoked);

    // The allowed person's job, due after the revoked one's slot, wakes the scheduler and shows it has looked.
    h.llm.enqueue(
      { kind: "tools", calls: [{ name: "cronjob", arguments: { action: "create", schedule: "in 1s", prompt: "say ping" } }] },
      { kind: "text", text: "Scheduled." },
      { kind: "text", text: "pong" },
    );
    await h.adapter.userSays("ping me in 1s");
    await vi.waitFor(() => expect(h?.adapter.texts("100")).toEqual([anyCreationNotice("in 1s"), "Scheduled.", "pong"]), SLOW_MACHINE);

    expect(await store.cronJobs.get(revoked.id)).toMatchObject({ lastStatus: "skipped", runs: 0 });
    expect(h.adapter.texts("900")).toEqual([]);
    expect(h.llm.requests).toHaveLength(3);
    expect(JSON.stringify(h.llm.requests)).not.toContain("say secret");
  });
});

describe("removing a scheduled task in the chat", () => {
  it("stops the task's run in progress, which the chat's /stop does not reach", async () => {
    h = await startGatewayHarness({ HERMES_ALLOWED_USERS: "telegram:7" });
    h.llm.enqueue(
      { kind: "tools", calls: [{ name: "cronjob", arguments: { action: "create", schedule: "in 1s", prompt: "say ping" } }] },
      { kind: "text", text: "Scheduled." },
      { kind: "hang" },
    );
    await h.adapter.userSays("ping me in 1s");
    await vi.waitFor(() => expect(h?.llm.requests).toHaveLength(3), SLOW_MACHINE);
    const [job] = await h.gateway.store.cronJobs.listAll();
    const key = `agent:main:cron:${job?.id}`;
    expect(await h.gateway.store.inbound.unanswered(key)).toBe(1);

    await h.adapter.userSays("/stop");
    await h.adapter.userSays(`/cron remove ${job?.id.toUpperCase()}`);
    await h.gateway.waitIdle(key);
    expect(h.adapter.texts("100")).toEqual([creationNotice(job?.id, "in 1s"), "Scheduled.", "Nothing to stop: I'm not working on anything.", `Removed the scheduled task ${job?.id.toUpperCase()} and stopped its run in progress.`]);
    expect(await h.gateway.store.cronJobs.listAll()).toEqual([]);
    expect(await h.gateway.store.inbound.unanswered(key)).toBe(0);
  });
});

describe("hermes cron (the CLI against the state database)", () => {
  it("lists every job as JSON and removes one by id; an unknown id exits 1", async () => {
    const home = await mkdtemp(path.join(os.tmpdir(), "hermes-cron-cli-"));
    try {
      const env = { HOME: home, HERMES_HOME: path.join(home, "state") };
      const store = await openStore({ file: path.join(home, "state", "state.db") });
      const job = { id: "ab12cd34", platform: "telegram", chatId: "-100", chatType: "group" as const, creatorId: "7", sessionKey: "agent:main:telegram:group:-100:7", schedule: "every 2h", kind: "every" as const, prompt: "check the\u001b[31m build", nextRunAt: Date.now() + 7_200_000, createdAt: Date.now() };
      await store.cronJobs.create(job);
      await store.close();
      const made = { job };

      const listed = await runCli(["cron", "list", "--json"], { env });
      expect(listed.code).toBe(0);
      expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id: made.job.id, platform: "telegram", chatId: "-100", schedule: "every 2h", kind: "every", runs: 0 })]);
      const text = await runCli(["cron", "list"], { env });
      expect(text.stdout).toContain(`${made.job.id}  telegram:group:-100  "every 2h"`);
      expect(text.stdout).not.toContain("\u001b");

      expect((await runCli(["cron", "remove", "zzzzzzzz"], { env })).code).toBe(1);
      const removed = await runCli(["cron", "remove", made.job.id], { env });
      expect(removed.code).toBe(0);
      expect(JSON.parse((await runCli(["cron", "list", "--json"], { env })).stdout)).toEqual([]);
      expect((await runCli(["cron", "remove"], { env })).code).toBe(2);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});

describe("scheduled tasks with BullMQ workers (npm start and npm run worker on a real redis-server)", () => {
  it("finds a job a worker's run created, runs it on a worker and delivers the answer to the chat once", async () => {
    const redis = await startRedis();
    const llm = await startLlmServer();
    const telegram = await startFakeTelegram({ token: TOKEN });
    const home = await mkdtemp(path.join(os.tmpdir(), "hermes-cron-bullmq-"));
    const apps: AppProcess[] = [];
    try {
      const env = {
        HOME: home,
        HERMES_HOME: path.join(home, "state"),
        HERMES_BASE_URL: llm.baseUrl,
        HERMES_MODEL: "scripted-model",
        HERMES_API_KEY: "test-key",
        HERMES_HTTP_PORT: "0",
        REDIS_URL: redis.url,
        TELEGRAM_BOT_TOKEN: TOKEN,
        TELEGRAM_API_ROOT: telegram.apiRoot,
        HERMES_ALLOWED_USERS: "telegram:7",
      };
      const worker = startApp("worker", env);
      apps.push(worker);
      await worker.waitFor("worker started");
      const gateway = startApp("gateway", env);
      apps.push(gateway);
      await gateway.waitFor('"msg":"gateway started"');

      llm.enqueue(
        { kind: "tools", calls: [{ name: "cronjob", arguments: { action: "create", schedule: "in 2s", prompt: "say ping" } }] },
        { kind: "text", text: "Scheduled." },
        { kind: "text", text: "pong" },
      );
      const { update } = telegram.userWrites({ text: "ping me in 2s" });
      await telegram.waitForConfirmation(update);
      await waitForSent(telegram, "Scheduled.");
      // The job was made on the worker: the gateway's scheduler finds it at its next look, not by a signal.
      await waitForSent(telegram, "pong");
      await gateway.waitFor("a scheduled task started a run");
      expect(llm.requests).toHaveLength(3);
      expect(userTexts(llm.requests[2])).toContain("say ping");
      // The notice of the worker's tool call reached the chat through the gateway's outbox too.
      expect(telegram.sentTo(7).map((m) => m.visible)).toEqual([anyCreationNotice("in 2s"), "Scheduled.", "pong"]);
      for (const app of apps) app.kill("SIGTERM");
      for (const app of apps) expect(await app.exited).toEqual({ code: 0, signal: null });
    } finally {
      for (const app of apps) {
        app.kill("SIGKILL");
        await app.exited;
      }
      await telegram.close();
      await llm.close();
      await redis.stop();
      await rm(home, { recursive: true, force: true });
    }
  }, 90_000);
});
