import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RecordedRequest, ScriptedReply } from "../fakes/llm-server.js";
import { startGatewayHarness, type GatewayHarness } from "../support/gateway-harness.js";
import { installKillSwitchHook, startKillSwitch, type KillSwitch, type WorkerMoment } from "../support/kill-switch.js";
import { lastUserText } from "../support/provider-faults.js";
import { startRedis, type TestRedis } from "../support/redis-server.js";
import { KILL_POINTS, KillSchedule, type KillPoint } from "../support/kill-schedule.js";
import { pick, seededRandom, shuffled } from "../support/seeded-random.js";
import { loadAgentWorker, startAgentWorker, type StandbyWorker, type WorkerProcess } from "../support/worker-processes.js";

const SEED = 20_251_202;
const USERS = 10;
// Rounds of one message per user; each round has one kill.
const ROUNDS = 5;
const BUSY_ACK = /^Got it\. I'm still answering/;

let redis: TestRedis | undefined;
let harness: GatewayHarness | undefined;
let killSwitch: KillSwitch | undefined;
let home: string | undefined;
const workers = new Map<string, WorkerProcess>();
// Each worker's next life, loaded ahead so that a restart after a kill is a matter of milliseconds.
const spares = new Map<string, Promise<StandbyWorker>>();
const restarts: Promise<unknown>[] = [];

afterEach(async () => {
  await Promise.allSettled(restarts.splice(0));
  for (const worker of workers.values()) await worker.kill("SIGKILL");
  for (const spare of spares.values()) await spare.then((standby) => standby.worker.kill("SIGKILL"), () => undefined);
  workers.clear();
  spares.clear();
  await harness?.close();
  await killSwitch?.close();
  await redis?.stop();
  if (home) await rm(home, { recursive: true, force: true });
  harness = undefined;
  killSwitch = undefined;
  redis = undefined;
  home = undefined;
});

const tokenIn = (text: string): string => /t\d+x\d+/.exec(text)?.[0] ?? "none";
const answer = (token: string): ScriptedReply => ({ kind: "text", text: `answer:${token}` });

describe("SIGKILLed BullMQ workers (two workers, one killed and restarted at seeded points of 50 runs)", () => {
  it("answers every message exactly once", async () => {
    redis = await startRedis();
    home = await mkdtemp(path.join(os.tmpdir(), "hermes-kill-"));
    const state = home;
    await installKillSwitchHook(path.join(state, "hooks"));
    const h = await startGatewayHarness({ REDIS_URL: redis.url, HERMES_ALLOWED_USERS: "*" }, state);
    harness = h;

    // Every point once and one more drawn, in a seeded order, each after a seeded number of chances passed up.
    const random = seededRandom(SEED);
    const schedule = new KillSchedule(shuffled([...KILL_POINTS, pick(KILL_POINTS, random)], random), random);
    const kills: Array<{ point: KillPoint; token: string; worker: string }> = [];
    let restarting = 0;
    const bothUp = (): boolean => restarting === 0 && [...workers.values()].every((worker) => worker.alive());

    const envFor = (name: string): Record<string, string> => ({
      HOME: state,
      HERMES_HOME: state,
      HERMES_BASE_URL: h.llm.baseUrl,
      HERMES_MODEL: "scripted-model",
      // The key tells the scripted model which worker is calling.
      HERMES_API_KEY: `key-${name}`,
      HERMES_TOOLS: "think,terminal",
      HERMES_WORKERS: "2",
      REDIS_URL: redis?.url ?? "",
      KILL_SWITCH_URL: killSwitch?.url ?? "",
      WORKER_LOCK_MS: "3000",
    });
    const loadSpare = (name: string): Promise<StandbyWorker> => {
      const loading = loadAgentWorker(envFor(name), state);
      // Awaited when it is activated or cleaned up; a failure to load shows there, not as an unhandled rejection.
      loading.catch(() => undefined);
      return loading;
    };
    /** Kills this very process (not a successor of it) and starts the worker's next life in the background. */
    const killAndRestart = async (name: string, victim: WorkerProcess, point: KillPoint, token: string): Promise<void> => {
      kills.push({ point, token, worker: name });
      restarting += 1;
      await victim.kill("SIGKILL");
      const spare = spares.get(name) ?? loadSpare(name);
      spares.set(name, loadSpare(name));
      const next = spare.then((standby) => standby.activate()).then((started) => void workers.set(name, started));
      restarts.push(next);
      // A failed restart fails the test at the next round (through `restarts`), not as an unhandled rejection.
      await next.catch(() => undefined).finally(() => (restarting -= 1));
    };

    const runningIn = new Map<string, number>();
    killSwitch = await startKillSwitch(async (moment: WorkerMoment) => {
      if (moment.type === "agent:start") runningIn.set(moment.sessionKey, moment.inboundId);
      const inboundId = moment.type === "agent:start" ? moment.inboundId : runningIn.get(moment.sessionKey);
      const record = inboundId === undefined ? undefined : await h.gateway.store.inbound.get(inboundId);
      const point: KillPoint = moment.type === "agent:start" ? "before-model" : "after-completion";
      const entry = [...workers].find(([, worker]) => worker.pid === moment.pid);
      if (!entry || !record || !schedule.shouldKill(point, bothUp())) return;
      // Not awaited: the hook's request dies with the worker.
      void killAndRestart(entry[0], entry[1], point, tokenIn(record.payload));
    });

    h.llm.enqueue(
      ...Array.from({ length: 1_000 }, () => (request: RecordedRequest): ScriptedReply => {
        const token = tokenIn(lastUserText(request));
        const name = /key-(\w+)/.exec(request.headers.authorization ?? "")?.[1] ?? "?";
        const caller = workers.get(name);
        const afterTool = (request.messages.at(-1) as { role?: unknown } | undefined)?.role === "tool";
        if (!caller || afterTool) return answer(token);
        if (schedule.shouldKill("mid-stream", bothUp())) {
          setTimeout(() => void killAndRestart(name, caller, "mid-stream", token), 400);
          return { kind: "text", text: `answer:${token}`, chunks: 10, delayMsBetweenChunks: 300 };
        }
        if (schedule.shouldKill("mid-tool", bothUp())) {
          setTimeout(() => void killAndRestart(name, caller, "mid-tool", token), 700);
          return { kind: "tools", calls: [{ name: "terminal", arguments: { command: "sleep 2" } }] };
        }
        return answer(token);
      }),
    );

    const [a, b] = await Promise.all([startAgentWorker(envFor("A"), state), startAgentWorker(envFor("B"), state)]);
    workers.set("A", a);
    workers.set("B", b);
    for (const name of workers.keys()) spares.set(name, loadSpare(name));
    const answers = (): string[] => h.adapter.texts().filter((text) => text.startsWith("answer:"));
    const context = (): string =>
      `kills ${JSON.stringify(kills)}\nworker logs:\n${[...workers.values()].map((w) => w.output().slice(-3_000)).join("\n---\n")}`;

    const tokens: string[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      await Promise.all(restarts);
      schedule.startRound();
      for (let user = 0; user < USERS; user += 1) {
        tokens.push(`t${user}x${round}`);
        await h.adapter.userSays(`question t${user}x${round}`, { chat: { id: `chat${user}`, type: "dm" }, user: { id: `user${user}`, name: `U${user}` }, messageId: `m${user}-${round}` });
      }
      for (const deadline = Date.now() + 60_000; answers().length < tokens.length; await new Promise((r) => setTimeout(r, 100))) {
        if (Date.now() > deadline) throw new Error(`round ${round}: ${answers().length} of ${tokens.length} answered\n${context()}`);
      }
    }
    for (let user = 0; user < USERS; user += 1) await h.gateway.waitIdle(`agent:main:telegram:dm:chat${user}`);
    // A duplicate (a run taken over and finished twice) would land after the last first answer; give it time to show.
    await new Promise((r) => setTimeout(r, 1_500));

    expect(answers().sort(), context()).toEqual(tokens.map((token) => `answer:${token}`).sort());
    expect(h.adapter.texts().filter((text) => !text.startsWith("answer:") && !BUSY_ACK.test(text)), context()).toEqual([]);
    const keys = h.adapter.sent.map((sent) => sent.message.idempotencyKey).filter((key) => key !== undefined);
    expect(new Set(keys).size, "a delivery part was sent twice").toBe(keys.length);
    expect(await h.gateway.store.deliveries.countPending()).toBe(0);
    // The store agrees: each message finished once as answered (none failed, none still open).
    const finished = (await h.gateway.store.inbound.recent(1_000)).filter((record) => /^m\d+-\d+$/.test(record.messageId));
    expect(finished.map((record) => record.status)).toEqual(tokens.map(() => "answered"));
    expect(kills.map((kill) => kill.point).sort(), context()).toEqual(expect.arrayContaining([...KILL_POINTS].sort()));
    expect(kills).toHaveLength(ROUNDS);
  }, 150_000);
});
