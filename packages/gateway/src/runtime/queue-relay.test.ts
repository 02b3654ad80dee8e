import { afterEach, describe, expect, it } from "vitest";
import type { Logger } from "@hermes/agent";
import { Queue } from "bullmq";
import { startRedis, startRedisOnPort, type TestRedis } from "../../../../test/support/redis-server.js";
import { BullMqQueue } from "../queue/bullmq-queue.js";
import { QueueRelay } from "./queue-relay.js";
import { waitUntil as until } from "../../../../test/support/wait-until.js";

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function recordingLogger(lines: Array<{ level: string; message: string; fields?: Record<string, unknown> }>): Logger {
  const logger: Logger = {
    debug: (message, fields) => lines.push({ level: "debug", message, fields }),
    info: (message, fields) => lines.push({ level: "info", message, fields }),
    warn: (message, fields) => lines.push({ level: "warn", message, fields }),
    error: (message, fields) => lines.push({ level: "error", message, fields }),
    child: () => logger,
  };
  return logger;
}

/** A loopback port where a redis-server ran a moment ago and nothing listens now. */
async function portOfStoppedRedis(): Promise<number> {
  const redis = await startRedis();
  await redis.stop();
  return redis.port;
}

function relayOn(port: number, lines: Parameters<typeof recordingLogger>[0], queueName: string): QueueRelay {
  const logger = recordingLogger(lines);
  const producer = new BullMqQueue({ redisUrl: `redis://127.0.0.1:${port}`, queueName, logger, enqueueTimeoutMs: 500 });
  const relay = new QueueRelay({ queue: producer, logger, retryMs: 100 });
  closers.push(() => relay.close());
  return relay;
}

async function redisAgain(port: number): Promise<TestRedis> {
  const redis = await startRedisOnPort(port);
  closers.push(() => redis.stop());
  return redis;
}

describe("QueueRelay", () => {
  it("takes messages while Redis is down, logs the outage once, and relays every run once Redis answers", async () => {
    const port = await portOfStoppedRedis();
    const lines: Array<{ level: string; message: string; fields?: Record<string, unknown> }> = [];
    const relay = relayOn(port, lines, "relay-a");

    for (const inboundId of [1, 2, 3]) expect(await relay.enqueue({ inboundId, sessionKey: `s${inboundId}` })).toEqual({ enqueued: true });
    // A platform's redelivery of a kept message is not a second run.
    expect(await relay.enqueue({ inboundId: 2, sessionKey: "s2" })).toEqual({ enqueued: false });
    expect(relay.backlogSize()).toBe(3);
    expect(await relay.waiting()).toBe(3);
    expect(lines.filter((line) => line.level === "warn" && line.message.startsWith("redis unreachable"))).toHaveLength(1);

    const redis = await redisAgain(port);
    await until(() => relay.backlogSize() === 0, "the backlog to drain");
    expect(relay.relayed()).toBe(3);
    expect(lines.some((line) => line.message.includes("relayed messages to the run queue") && line.fields?.relayed === 3)).toBe(true);

    const inspect = new Queue("relay-a", { connection: { url: redis.url } });
    closers.push(() => inspect.close());
    expect((await inspect.getWaiting()).map((job) => job.id).sort()).toEqual(["run-1", "run-2", "run-3"]);
    // Relaying is idempotent: the same message enqueued again (e.g. by recovery after a restart) is no new job.
    expect(await relay.enqueue({ inboundId: 1, sessionKey: "s1" })).toEqual({ enqueued: false });
    expect(await inspect.getJobCountByTypes("waiting")).toBe(3);
  });

  it("drops the kept runs of a stopped session and still relays the others", async () => {
    const port = await portOfStoppedRedis();
    const relay = relayOn(port, [], "relay-b");
    await relay.enqueue({ inboundId: 1, sessionKey: "stopped" });
    await relay.enqueue({ inboundId: 2, sessionKey: "kept" });
    await relay.stop("stopped");
    expect(relay.backlogSize()).toBe(1);

    const redis = await redisAgain(port);
    await until(() => relay.backlogSize() === 0, "the backlog to drain");
    const inspect = new Queue("relay-b", { connection: { url: redis.url } });
    closers.push(() => inspect.close());
    expect((await inspect.getWaiting()).map((job) => job.id)).toEqual(["run-2"]);
  });

  it("enqueues straight through while Redis answers, and keeps a run that Redis failed mid-way", async () => {
    const first = await startRedis();
    const port = first.port;
    const lines: Array<{ level: string; message: string }> = [];
    const relay = relayOn(port, lines, "relay-c");
    expect(await relay.enqueue({ inboundId: 1, sessionKey: "s" })).toEqual({ enqueued: true });
    expect(relay.backlogSize()).toBe(0);

    await first.stop();
    expect(await relay.enqueue({ inboundId: 2, sessionKey: "s" })).toEqual({ enqueued: true });
    expect(relay.backlogSize()).toBe(1);
    // Without persistence the restarted Redis is empty: only the kept run arrives (run 1's rescue is the store's recovery).
    const redis = await redisAgain(port);
    await until(() => relay.backlogSize() === 0, "the backlog to drain");
    const inspect = new Queue("relay-c", { connection: { url: redis.url } });
    closers.push(() => inspect.close());
    expect((await inspect.getWaiting()).map((job) => job.id)).toEqual(["run-2"]);
  });
});
