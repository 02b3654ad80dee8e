import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startLlmServer, type LlmServer } from "./fakes/llm-server.js";
import { startFakeSlack, type FakeSlack } from "./fakes/slack/fake-slack.js";
import { directMessage, eventCallback, nextSlackTs, postSlackEvent } from "./fakes/slack/slack-events.js";
import { ADA, startFakeTelegram, type FakeTelegram } from "./fakes/telegram/index.js";
import { httpUrl, startApp, type AppProcess } from "./support/app-process.js";
import { startRedis, startRedisOnPort, type TestRedis } from "./support/redis-server.js";
import { waitUntil } from "./support/wait-until.js";

const TOKEN = "123456:OUTAGE-e2e-token";
const SIGNING_SECRET = "outage-e2e-signing-secret";

let llm: LlmServer;
let telegram: FakeTelegram;
let slack: FakeSlack;
let home: string;
let redis: TestRedis;
const apps: AppProcess[] = [];

beforeEach(async () => {
  redis = await startRedis();
  llm = await startLlmServer();
  telegram = await startFakeTelegram({ token: TOKEN });
  slack = await startFakeSlack();
  slack.addUser({ id: "U_ALICE", name: "alice", displayName: "Alice" });
  home = await mkdtemp(path.join(os.tmpdir(), "hermes-redis-outage-"));
});
afterEach(async () => {
  for (const app of apps.splice(0)) {
    app.kill("SIGKILL");
    await app.exited;
  }
  await redis.stop();
  await slack.close();
  await telegram.close();
  await llm.close();
  await rm(home, { recursive: true, force: true });
});

function env(): Record<string, string> {
  return {
    HOME: home,
    HERMES_HOME: path.join(home, "state"),
    HERMES_BASE_URL: llm.baseUrl,
    HERMES_MODEL: "scripted-model",
    HERMES_API_KEY: "test-key",
    HERMES_HTTP_PORT: "0",
    REDIS_URL: redis.url,
    TELEGRAM_BOT_TOKEN: TOKEN,
    TELEGRAM_API_ROOT: telegram.apiRoot,
    SLACK_BOT_TOKEN: slack.botToken,
    SLACK_API_URL: slack.apiUrl,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    HERMES_ALLOWED_USERS: `telegram:${ADA.id},slack:U_ALICE`,
  };
}

function start(name: "gateway" | "worker"): AppProcess {
  const app = startApp(name, env());
  apps.push(app);
  return app;
}

interface Readiness {
  status: string;
  checks: Record<string, { ok: boolean; detail: string }>;
  relayBacklog?: number;
}

/** The value of one series in the gateway's /metrics. */
async function metric(base: string, series: string): Promise<number | undefined> {
  const line = (await (await fetch(`${base}/metrics`)).text()).split("\n").find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function readiness(base: string): Promise<{ code: number; body: Readiness }> {
  const response = await fetch(`${base}/readyz`);
  return { code: response.status, body: (await response.json()) as Readiness };
}

/** Each platform's message gets its own answer, whichever order the worker takes them in. */
function answerByPlatform(): void {
  const step = (request: { messages: unknown }) => {
    const asked = JSON.stringify(request.messages);
    return { kind: "text" as const, text: asked.includes("sent from Telegram") ? "Telegram answer." : asked.includes("sent from Slack") ? "Slack answer." : "Unexpected." };
  };
  llm.enqueue(step, step);
}

describe("a Redis outage at intake (gateway + BullMQ worker)", () => {
  it("acknowledges every message while Redis is down, shows the outage in /readyz, and answers each once Redis is back", async () => {
    const worker = start("worker");
    await worker.waitFor("worker started");
    const gateway = start("gateway");
    await gateway.waitFor('"msg":"gateway started"');
    const base = httpUrl(gateway);
    expect((await readiness(base)).body.checks.redis?.ok).toBe(true);
    expect(await metric(base, "hermes_run_queue_kept")).toBe(0);

    const port = redis.port;
    await redis.stop();
    await waitUntil(async () => (await readiness(base)).body.checks.redis?.ok === false, "/readyz to see redis down");
    answerByPlatform();

    const { update } = telegram.userWrites({ from: ADA, text: "Hello, sent from Telegram" });
    // The gateway confirms the update (its next poll moves past it): the message is taken, not left for a redelivery.
    await telegram.waitForConfirmation(update);
    const slackAnswer = await postSlackEvent(`${base}/slack/events`, eventCallback(directMessage({ channel: "D_ALICE", user: "U_ALICE", text: "Hi, sent from Slack", ts: nextSlackTs() })), { signingSecret: SIGNING_SECRET });
    expect(slackAnswer.status).toBe(200);

    await waitUntil(async () => (await readiness(base)).body.relayBacklog === 2, "both messages kept for the run queue");
    const down = await readiness(base);
    expect(down.code).toBe(503);
    expect(down.body.checks.redis?.detail).toContain("2 messages kept for the run queue");
    expect(await metric(base, "hermes_run_queue_kept")).toBe(2);
    expect(gateway.stderr()).toContain("redis unreachable: messages are kept and relayed to the run queue when it answers");
    // Nobody was asked to send anything again, and no run started without the queue.
    expect(telegram.sentTo(ADA.id)).toEqual([]);
    expect(slack.posted).toEqual([]);
    expect(llm.requests).toHaveLength(0);

    redis = await startRedisOnPort(port);
    await waitUntil(() => telegram.sentTo(ADA.id).length >= 1 && slack.posted.length >= 1, "both answers");
    expect(telegram.sentTo(ADA.id).map((sent) => sent.text)).toEqual(["Telegram answer."]);
    expect(slack.posted.map((posted) => [posted.channel, posted.text])).toEqual([["D_ALICE", "Slack answer."]]);
    expect(gateway.stderr()).toContain("redis answers again: relayed messages to the run queue");
    await waitUntil(async () => (await readiness(base)).body.checks.redis?.ok === true, "/readyz to see redis again");
    expect((await readiness(base)).body.relayBacklog).toBe(0);
    expect(await metric(base, "hermes_run_queue_kept")).toBe(0);
    expect(llm.requests).toHaveLength(2);

    gateway.kill("SIGTERM");
    expect((await gateway.exited).code).toBe(0);
    worker.kill("SIGTERM");
    expect((await worker.exited).code).toBe(0);
  }, 120_000);
  it("a gateway restarted during the outage recovers the message it had kept and answers it once Redis answers", async () => {
    const worker = start("worker");
    await worker.waitFor("worker started");
    const first = start("gateway");
    await first.waitFor('"msg":"gateway started"');
    const port = redis.port;
    await redis.stop();
    answerByPlatform();
    const { update } = telegram.userWrites({ from: ADA, text: "Hello, sent from Telegram" });
    await telegram.waitForConfirmation(update);
    const firstBase = httpUrl(first);
    await waitUntil(async () => (await readiness(firstBase)).body.relayBacklog === 1, "the message kept for the run queue");
    first.kill("SIGTERM");
    expect((await first.exited).code).toBe(0);

    // Redis is still down when the next gateway starts: it cannot take the active-gateway lease yet, so it waits as
    // a standby; the message stays saved as queued meanwhile.
    const second = start("gateway");
    await second.waitFor('"msg":"gateway started"');
    const secondBase = httpUrl(second);
    expect(telegram.sentTo(ADA.id)).toEqual([]);

    redis = await startRedisOnPort(port);
    await waitUntil(() => telegram.sentTo(ADA.id).length >= 1, "the answer");
    expect(telegram.sentTo(ADA.id).map((sent) => sent.text)).toEqual(["Telegram answer."]);
    await waitUntil(async () => (await readiness(secondBase)).body.relayBacklog === 0, "the backlog to drain");
    expect(llm.requests).toHaveLength(1);
  }, 120_000);
});
