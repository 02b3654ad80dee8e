import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { startRedis, type TestRedis } from "../../../../test/support/redis-server.js";
import { BullMqQueue } from "./bullmq-queue.js";
import { BullMqWorkerHost } from "./bullmq-worker-host.js";
import { deferred } from "./testing.js";
import type { AgentRunJob, SettledOutcome } from "./types.js";

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const TSX_LOADER = pathToFileURL(path.join(REPO_ROOT, "node_modules/tsx/dist/loader.mjs")).href;
const CHILD_WORKER = path.join(REPO_ROOT, "test/support/bullmq-worker-child.ts");
const QUEUE_NAME = "crash-runs";
// Short locks and stall checks, so the orphaned job is found in about a second rather than the production 10–15 s; the
// production settings are proved end to end by test/bullmq-e2e.test.ts (a SIGKILLed `npm run worker`).
const LOCK_MS = 1_500;
const STALLED_INTERVAL_MS = 500;

describe("BullMQ crash recovery", () => {
  let server: TestRedis;
  let redis: Redis;
  let child: ChildProcess | undefined;
  const closers: Array<() => Promise<void>> = [];

  beforeEach(async () => {
    server = await startRedis();
    redis = new Redis(server.url);
  });

  afterEach(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = once(child, "exit");
      child.kill("SIGKILL");
      await exited;
    }
    for (const close of closers.splice(0).reverse()) await close();
    await redis.quit();
    await server.stop();
  });

  it("a job whose worker process is SIGKILLed is completed exactly once by another worker", async () => {
    const queue = new BullMqQueue({ redisUrl: server.url, queueName: QUEUE_NAME });
    closers.push(() => queue.close());
    await queue.ready();
    const settled: Array<[AgentRunJob, SettledOutcome]> = [];
    const firstSettle = deferred<void>();
    queue.onSettled((job, outcome) => {
      settled.push([job, outcome]);
      firstSettle.resolve();
    });

    child = spawn(process.execPath, ["--import", TSX_LOADER, CHILD_WORKER], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", REDIS_URL: server.url, QUEUE_NAME, LOCK_MS: String(LOCK_MS), STALLED_INTERVAL_MS: String(STALLED_INTERVAL_MS) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let childOutput = "";
    const ready = deferred<void>();
    child.stdout?.on("data", (chunk: Buffer) => {
      childOutput += chunk.toString("utf8");
      if (childOutput.includes("ready\n")) ready.resolve();
    });
    child.stderr?.on("data", (chunk: Buffer) => (childOutput += chunk.toString("utf8")));
    child.once("exit", () => ready.reject(new Error(`worker child exited early:\n${childOutput}`)));
    await ready.promise;

    const job = { inboundId: 77, sessionKey: "agent:main:telegram:dm:77" };
    expect(await queue.enqueue(job)).toEqual({ enqueued: true });
    // The child takes the job and hangs in its processor.
    expect(await redis.blpop(`${QUEUE_NAME}:started`, 15)).toEqual([`${QUEUE_NAME}:started`, "77"]);

    const killed = once(child, "exit");
    child.kill("SIGKILL");
    await killed;

    // A second worker must find the orphaned job once its lock expires.
    const survivor = new BullMqWorkerHost({
      redisUrl: server.url,
      queueName: QUEUE_NAME,
      concurrency: 1,
      lockDurationMs: LOCK_MS,
      stalledIntervalMs: STALLED_INTERVAL_MS,
      processor: async (run) => {
        await redis.rpush(`${QUEUE_NAME}:completed`, String(run.inboundId));
        return "done";
      },
    });
    closers.push(() => survivor.close());
    await survivor.ready();
    await firstSettle.promise;

    expect(await redis.lrange(`${QUEUE_NAME}:completed`, 0, -1)).toEqual(["77"]);
    expect(settled).toEqual([[job, "done"]]);
    expect(await queue.enqueue(job)).toEqual({ enqueued: false });
    expect(survivor.workerHealth()).toMatchObject({ processed: 1, failed: 0 });
  }, 45_000);
});
