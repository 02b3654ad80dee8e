import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { startRedis, type TestRedis } from "../../../../test/support/redis-server.js";
import { BullMqQueue } from "./bullmq-queue.js";
import { BullMqWorkerHost, type BullMqWorkerHostOptions } from "./bullmq-worker-host.js";
import { publishStop } from "./stop-channel.js";
import { deferred } from "./testing.js";
import { RunAbortedError, type AgentRunJob, type RunProcessor, type SettledOutcome } from "./types.js";

let server: TestRedis;
let queueCount = 0;
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  await server.stop();
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** Each test has its own queue name, so jobs of one test never reach another's worker. */
function newQueueName(): string {
  queueCount += 1;
  return `test-runs-${queueCount}`;
}

function producer(queueName: string, options: { attempts?: number; retryBackoffMs?: number } = {}): BullMqQueue {
  const queue = new BullMqQueue({ redisUrl: server.url, queueName, ...options });
  closers.push(() => queue.close());
  return queue;
}

async function workerHost(
  queueName: string,
  processor: RunProcessor,
  options: Partial<BullMqWorkerHostOptions> = {},
): Promise<BullMqWorkerHost> {
  const host = new BullMqWorkerHost({ redisUrl: server.url, queueName, processor, concurrency: 2, ...options });
  closers.push(() => host.close({ drainMs: 1_000 }));
  await host.ready();
  return host;
}

/** Resolves with the next `count` settle notifications of a producer. */
function nextSettled(queue: BullMqQueue, count: number): Promise<Array<[AgentRunJob, SettledOutcome]>> {
  const seen: Array<[AgentRunJob, SettledOutcome]> = [];
  const all = deferred<Array<[AgentRunJob, SettledOutcome]>>();
  queue.onSettled((job, outcome) => {
    seen.push([job, outcome]);
    if (seen.length === count) all.resolve(seen);
  });
  return all.promise;
}

describe("BullMqQueue with BullMqWorkerHost", () => {
  it("enqueues a run once per inbound id, whether it is waiting or already completed", async () => {
    const queueName = newQueueName();
    const queue = producer(queueName);
    await queue.ready();
    const job = { inboundId: 41, sessionKey: "agent:main:telegram:dm:1" };

    expect(await queue.enqueue(job)).toEqual({ enqueued: true });
    expect(await queue.enqueue(job)).toEqual({ enqueued: false });
    // A second gateway (another connection) sees the same job.
    expect(await producer(queueName).enqueue(job)).toEqual({ enqueued: false });

    const settled = nextSettled(queue, 1);
    const processed: AgentRunJob[] = [];
    await workerHost(queueName, async (run) => {
      processed.push(run);
      return "done";
    });
    await settled;

    expect(await queue.enqueue(job)).toEqual({ enqueued: false });
    expect(processed).toEqual([job]);
  });

  it("counts waiting runs until a worker takes them", async () => {
    const queueName = newQueueName();
    const queue = producer(queueName);
    await queue.ready();
    expect(await queue.waiting()).toBe(0);
    await queue.enqueue({ inboundId: 1, sessionKey: "agent:main:telegram:dm:1" });
    await queue.enqueue({ inboundId: 2, sessionKey: "agent:main:telegram:dm:2" });
    expect(await queue.waiting()).toBe(2);

    const settled = nextSettled(queue, 2);
    await workerHost(queueName, async () => "done");
    await settled;
    expect(await queue.waiting()).toBe(0);
  });

  it("runs a job in the worker host and reports it settled to the producer", async () => {
    const queueName = newQueueName();
    const queue = producer(queueName);
    const host = await workerHost(queueName, async () => "done");
    await queue.ready();
    const settled = nextSettled(queue, 2);

    await queue.enqueue({ inboundId: 1, sessionKey: "s1" });
    await queue.enqueue({ inboundId: 2, sessionKey: "s2" });

    const outcomes = await settled;
    expect(outcomes.sort(([a], [b]) => a.inboundId - b.inboundId)).toEqual([
      [{ inboundId: 1, sessionKey: "s1" }, "done"],
      [{ inboundId: 2, sessionKey: "s2" }, "done"],
    ]);
    expect(host.workerHealth()).toEqual({ running: 0, processed: 2, failed: 0, closing: false });
  });

  it("tells the producer that a run's replies are stored while the run is still going, before its job settles", async () => {
    const queueName = newQueueName();
    const queue = producer(queueName);
    const events: string[] = [];
    const heard = deferred<void>();
    queue.onRepliesStored((inboundId) => {
      events.push(`replies ${inboundId}`);
      if (inboundId === 13) heard.resolve();
    });
    queue.onSettled((job) => events.push(`settled ${job.inboundId}`));
    let host: BullMqWorkerHost | undefined;
    host = await workerHost(queueName, async (job) => {
      host?.repliesStored([job.inboundId, 13]);
      // The run goes on (hooks, the next message, releasing the session) until the gateway has heard.
      await heard.promise;
      return "done";
    });
    await queue.ready();
    const settled = nextSettled(queue, 1);
    await queue.enqueue({ inboundId: 12, sessionKey: "s12" });
    await settled;
    expect(events).toEqual(["replies 12", "replies 13", "settled 12"]);
  });

  it("carries the job's W3C trace context through Redis to the worker's processor", async () => {
    const queueName = newQueueName();
    const queue = producer(queueName);
    const seen = deferred<AgentRunJob>();
    await workerHost(queueName, async (job) => {
      seen.resolve(job);
      return "done";
    });
    await queue.ready();
    const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    await queue.enqueue({ inboundId: 7, sessionKey: "s7", traceparent });
    expect(await seen.promise).toEqual({ inboundId: 7, sessionKey: "s7", traceparent });
  });

  it("stop(sessionKey) from the producer aborts that session's running job in the worker host", async () => {
    const queueName = newQueueName();
    const queue = producer(queueName);
    const bothRunning = deferred<void>();
    const signals = new Map<number, AbortSignal>();
    const otherSession = deferred<"done">();
    await workerHost(queueName, async (job, { signal }) => {
      signals.set(job.inboundId, signal);
      if (signals.size === 2) bothRunning.resolve();
      if (job.sessionKey === "other") return otherSession.promise;
      await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      return "done";
    });
    await queue.ready();
    const settled = nextSettled(queue, 1);

    await queue.enqueue({ inboundId: 1, sessionKey: "busy" });
    await queue.enqueue({ inboundId: 2, sessionKey: "other" });
    await bothRunning.promise;
    await queue.stop("busy");

    expect(await settled).toEqual([[{ inboundId: 1, sessionKey: "busy" }, "done"]]);
    const reason: unknown = signals.get(1)?.reason;
    expect(reason instanceof RunAbortedError && reason.abortCause).toBe("stop");
    expect(signals.get(2)?.aborted).toBe(false);
    otherSession.resolve("done");
  });

  it("ignores malformed stop messages and keeps listening", async () => {
    const queueName = newQueueName();
    const queue = producer(queueName);
    const running = deferred<AbortSignal>();
    await workerHost(queueName, async (_job, { signal }) => {
      running.resolve(signal);
      await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      return "done";
    });
    await queue.ready();
    const settled = nextSettled(queue, 1);
    await queue.enqueue({ inboundId: 5, sessionKey: "s" });
    const signal = await running.promise;

    const publisher = new Redis(server.url);
    closers.push(async () => void (await publisher.quit()));
    await publisher.publish("hermes:stop", "not json");
    await publisher.publish("hermes:stop", JSON.stringify({ sessionKey: 42 }));
    await publishStop(publisher, "s");

    await settled;
    expect(signal.aborted).toBe(true);
  });

  it("re-delivers a retry_later job after other waiting work", async () => {
    const queueName = newQueueName();
    const queue = producer(queueName);
    await queue.ready();
    const order: number[] = [];
    const settled = nextSettled(queue, 2);
    await queue.enqueue({ inboundId: 1, sessionKey: "busy-elsewhere" });
    await queue.enqueue({ inboundId: 2, sessionKey: "free" });

    await workerHost(
      queueName,
      async (job) => {
        order.push(job.inboundId);
        return job.inboundId === 1 && order.length === 1 ? "retry_later" : "done";
      },
      { concurrency: 1 },
    );

    expect((await settled).map(([job, outcome]) => [job.inboundId, outcome])).toEqual([
      [2, "done"],
      [1, "done"],
    ]);
    expect(order).toEqual([1, 2, 1]);
  });

  it("retries a throwing processor per attempts and reports failed only when none remain", async () => {
    const queueName = newQueueName();
    const queue = producer(queueName, { attempts: 3, retryBackoffMs: 10 });
    let calls = 0;
    const host = await workerHost(queueName, async () => {
      calls += 1;
      throw new Error("provider down");
    });
    await queue.ready();
    const settled = nextSettled(queue, 1);
    await queue.enqueue({ inboundId: 9, sessionKey: "s" });

    expect(await settled).toEqual([[{ inboundId: 9, sessionKey: "s" }, "failed"]]);
    expect(calls).toBe(3);
    expect(host.workerHealth()).toMatchObject({ processed: 3, failed: 3 });
  });

  it("close() hands a run that outlives the drain back to the queue for another worker", async () => {
    const queueName = newQueueName();
    const queue = producer(queueName);
    const started = deferred<AbortSignal>();
    const first = new BullMqWorkerHost({
      redisUrl: server.url,
      queueName,
      concurrency: 1,
      processor: async (_job, { signal }) => {
        started.resolve(signal);
        await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
        return "done";
      },
    });
    closers.push(() => first.close());
    await first.ready();
    await queue.ready();
    const settled = nextSettled(queue, 1);
    await queue.enqueue({ inboundId: 3, sessionKey: "s" });
    const signal = await started.promise;

    await first.close({ drainMs: 50 });
    const reason: unknown = signal.reason;
    expect(reason instanceof RunAbortedError && reason.abortCause).toBe("shutdown");
    expect(first.workerHealth()).toMatchObject({ running: 0, closing: true });

    const completedBy: string[] = [];
    await workerHost(queueName, async () => {
      completedBy.push("second");
      return "done";
    });
    expect(await settled).toEqual([[{ inboundId: 3, sessionKey: "s" }, "done"]]);
    expect(completedBy).toEqual(["second"]);
  });

  it("close() does not wait for a run that ignores its abort signal; its job is recovered once its lock expires", async () => {
    const queueName = newQueueName();
    const queue = producer(queueName);
    const started = deferred<void>();
    const stuck = deferred<"done">();
    const first = new BullMqWorkerHost({
      redisUrl: server.url,
      queueName,
      concurrency: 1,
      lockDurationMs: 1_000,
      stalledIntervalMs: 200,
      abortGraceMs: 50,
      processor: async () => {
        started.resolve();
        return stuck.promise;
      },
    });
    closers.push(() => first.close());
    await first.ready();
    await queue.ready();
    const settled = nextSettled(queue, 1);
    await queue.enqueue({ inboundId: 4, sessionKey: "s" });
    await started.promise;

    await first.close({ drainMs: 10 });
    expect(first.workerHealth()).toMatchObject({ running: 1, closing: true });

    const completedBy: string[] = [];
    await workerHost(
      queueName,
      async () => {
        completedBy.push("second");
        return "done";
      },
      { stalledIntervalMs: 200 },
    );
    expect(await settled).toEqual([[{ inboundId: 4, sessionKey: "s" }, "done"]]);
    expect(completedBy).toEqual(["second"]);

    // The abandoned processor returning late must not complete the job a second time.
    stuck.resolve("done");
    await new Promise((resolve) => setImmediate(resolve));
    expect(first.workerHealth()).toMatchObject({ running: 0 });
  });
});
