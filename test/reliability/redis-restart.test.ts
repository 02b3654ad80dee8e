import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RecordedRequest, ScriptedReply } from "../fakes/llm-server.js";
import { startGatewayHarness, type GatewayHarness } from "../support/gateway-harness.js";
import { lastUserText } from "../support/provider-faults.js";
import { startRestartableRedis, type RestartableRedis } from "../support/restartable-redis.js";
import { startAgentWorker, type WorkerProcess } from "../support/worker-processes.js";

const USERS = 10;
const BEFORE_OUTAGE = 3;
const DURING_OUTAGE = 1;
const BUSY_ACK = /^Got it\. I'm still answering/;

let redis: RestartableRedis | undefined;
let harness: GatewayHarness | undefined;
let home: string | undefined;
const workers: WorkerProcess[] = [];

afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.kill("SIGKILL");
  await harness?.close();
  await redis?.close();
  if (home) await rm(home, { recursive: true, force: true });
  harness = undefined;
  redis = undefined;
  home = undefined;
});

const tokenIn = (text: string): string => /r\d+x\d+/.exec(text)?.[0] ?? "none";

/**
 * 30 messages in flight over BullMQ (a worker running four at a time, slow streamed answers), then Redis stops, 5 more arrive while it is
 * down (from half the users), and it starts again on the same port. Either way the store holds every message, so either way each must be
 * answered exactly once, with no error reply and no restart of the gateway or the workers:
 * - saved: Redis comes back with its dump (a clean restart), so waiting and running jobs are still there;
 * - not saved: Redis comes back empty (a crash without persistence, a replaced container), so every job it held is
 *   gone and only the store knows which messages are still open.
 */
async function restartUnderLoad(save: boolean): Promise<void> {
  redis = await startRestartableRedis();
  home = await mkdtemp(path.join(os.tmpdir(), "hermes-redis-restart-"));
  const state = home;
  const h = await startGatewayHarness({ REDIS_URL: redis.url, HERMES_ALLOWED_USERS: "*" }, state);
  harness = h;
  h.llm.enqueue(
    ...Array.from({ length: 1_000 }, () => (request: RecordedRequest): ScriptedReply => ({
      kind: "text",
      text: `answer:${tokenIn(lastUserText(request))}`,
      chunks: 4,
      delayMsBetweenChunks: 100,
    })),
  );
  const env = (name: string): Record<string, string> => ({
    HOME: state,
    HERMES_HOME: state,
    HERMES_BASE_URL: h.llm.baseUrl,
    HERMES_MODEL: "scripted-model",
    HERMES_API_KEY: `key-${name}`,
    HERMES_WORKERS: "4",
    REDIS_URL: redis?.url ?? "",
    WORKER_LOCK_MS: "3000",
  });
  workers.push(await startAgentWorker(env("A"), state));

  const tokens: string[] = [];
  const say = async (user: number, index: number): Promise<void> => {
    tokens.push(`r${user}x${index}`);
    await h.adapter.userSays(`question r${user}x${index}`, { chat: { id: `chat${user}`, type: "dm" }, user: { id: `user${user}`, name: `U${user}` }, messageId: `m${user}-${index}` });
  };
  const answers = (): string[] => h.adapter.texts().filter((text) => text.startsWith("answer:"));
  for (let index = 0; index < BEFORE_OUTAGE; index += 1) for (let user = 0; user < USERS; user += 1) await say(user, index);
  // Stop while runs are going: some answered, some running, most still waiting.
  for (const deadline = Date.now() + 30_000; answers().length < 4 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 20));
  await redis.stop({ save });
  // Only half the users write meanwhile: a new run of a session answers its older open messages too, which would hide
  // the loss of the other sessions' jobs.
  for (let index = BEFORE_OUTAGE; index < BEFORE_OUTAGE + DURING_OUTAGE; index += 1) for (let user = 0; user < USERS / 2; user += 1) await say(user, index);
  await new Promise((r) => setTimeout(r, 1_000));
  await redis.start();

  const context = (): string =>
    `answered ${answers().length} of ${tokens.length}; unexpected ${JSON.stringify(h.adapter.texts().filter((t) => !t.startsWith("answer:") && !BUSY_ACK.test(t)))}\n` +
    `worker logs:\n${workers.map((w) => w.output().slice(-2_500)).join("\n---\n")}`;
  for (const deadline = Date.now() + 60_000; answers().length < tokens.length; await new Promise((r) => setTimeout(r, 100))) {
    if (Date.now() > deadline) throw new Error(`not every message was answered after the restart: ${context()}`);
  }
  for (let user = 0; user < USERS; user += 1) await h.gateway.waitIdle(`agent:main:telegram:dm:chat${user}`);
  // A doubled run would land after the last first answer; give it time to show.
  await new Promise((r) => setTimeout(r, 1_500));

  expect(answers().sort(), context()).toEqual(tokens.map((token) => `answer:${token}`).sort());
  expect(h.adapter.texts().filter((text) => !text.startsWith("answer:") && !BUSY_ACK.test(text)), context()).toEqual([]);
  expect(await h.gateway.store.deliveries.countPending()).toBe(0);
  // The store agrees: each message finished once as answered (none failed, none still open).
  const finished = (await h.gateway.store.inbound.recent(1_000)).filter((record) => /^m\d+-\d+$/.test(record.messageId));
  expect(finished.map((record) => record.status)).toEqual(tokens.map(() => "answered"));
}

describe("Redis restarts under load (BullMQ, 35 messages)", () => {
  it("with its dump saved: nothing lost, nothing doubled", async () => {
    await restartUnderLoad(true);
  }, 120_000);

  it("empty (its data lost): the store's open messages are enqueued again and answered, each once", async () => {
    await restartUnderLoad(false);
  }, 120_000);
});
