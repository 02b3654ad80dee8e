import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "@hermes/agent";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { startRedis, type TestRedis } from "../../../../test/support/redis-server.js";
import { BullMqQueue } from "./bullmq-queue.js";
import { BullMqWorkerHost } from "./bullmq-worker-host.js";
import { InMemorySessionLock, RedisSessionLock } from "./session-lock.js";
import { InMemorySessionWaiters, RedisSessionWaiters, SESSION_WAITERS_PREFIX, wakingSessionLock } from "./session-waiters.js";
import { deferred } from "./testing.js";
import type { AgentRunJob, RunProcessor, SessionLease, SettledOutcome } from "./types.js";

describe("InMemorySessionWaiters", () => {
  it("wakes each parked waiter of the released session once, and no other session's", async () => {
    const waiters = new InMemorySessionWaiters();
    const woken: string[] = [];
    waiters.park("a", () => woken.push("a1"));
    waiters.park("a", () => woken.push("a2"));
    waiters.park("b", () => woken.push("b1"));
    await waiters.wake("a");
    await waiters.wake("a");
    expect(woken).toEqual(["a1", "a2"]);
    expect(waiters.count("b")).toBe(1);
  });

  it("forgets a waiter that withdrew", async () => {
    const waiters = new InMemorySessionWaiters();
    const woken: string[] = [];
    const withdraw = waiters.park("a", () => woken.push("a1"));
    withdraw();
    await waiters.wake("a");
    expect(woken).toEqual([]);
    expect(waiters.count("a")).toBe(0);
  });

  it("wakingSessionLock wakes the session's waiters when a lease is released, after the lock is free", async () => {
    const lock = new InMemorySessionLock();
    const waiters = new InMemorySessionWaiters();
    const waking = wakingSessionLock(lock, waiters, silentLogger);
    const lease = await waking.tryAcquire("s", 10_000);
    const freeWhenWoken: boolean[] = [];
    waiters.park("s", () => freeWhenWoken.push(!lock.isHeld("s")));
    expect(await waking.tryAcquire("s", 10_000)).toBeUndefined();
    await lease?.release();
    expect(freeWhenWoken).toEqual([true]);
  });
});

describe("RedisSessionWaiters with BullMQ workers on a real redis-server", () => {
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

  function redis(): Redis {
    const connection = new Redis(server.url, { maxRetriesPerRequest: null });
    closers.push(async () => void connection.disconnect());
    return connection;
  }

  async function producer(): Promise<{ queue: BullMqQueue; queueName: string }> {
    queueCount += 1;
    const queueName = `waiters-${queueCount}`;
    const queue = new BullMqQueue({ redisUrl: server.url, queueName });
    closers.push(() => queue.close());
    await queue.ready();
    return { queue, queueName };
  }

  async function worker(queueName: string, processor: RunProcessor, parkedSafetyDelayMs = 10 * 60_000): Promise<BullMqWorkerHost> {
    const host = new BullMqWorkerHost({ redisUrl: server.url, queueName, processor, concurrency: 2, parkedSafetyDelayMs });
    closers.push(() => host.close({ drainMs: 1_000 }));
    await host.ready();
    return host;
  }

  function settledIds(queue: BullMqQueue, count: number): Promise<Array<[number, SettledOutcome]>> {
    const seen: Array<[number, SettledOutcome]> = [];
    const all = deferred<Array<[number, SettledOutcome]>>();
    queue.onSettled((job, outcome) => {
      seen.push([job.inboundId, outcome]);
      if (seen.length === count) all.resolve(seen);
    });
    return all.promise;
  }

  /** Like the run processor: a job whose session is locked asks to run later; `hold` keeps a run's lease open. */
  function lockingProcessor(lock: RedisSessionLock, hold: Map<number, Promise<void>>, attempts: number[]): RunProcessor {
    return async (job: AgentRunJob) => {
      attempts.push(job.inboundId);
      const lease = await lock.tryAcquire(job.sessionKey, 30_000);
      if (!lease) return "retry_later";
      try {
        await hold.get(job.inboundId);
      } finally {
        await lease.release();
      }
      return "done";
    };
  }

  it("promotes only the named jobs that are still delayed: a waiting, a finished or an unknown one is left alone", async () => {
    const { queue, queueName } = await producer();
    const raw = new Queue(queueName, { connection: redis() });
    closers.push(() => raw.close());
    await raw.add("run", { inboundId: 1, sessionKey: "s" }, { jobId: "run-1", delay: 10 * 60_000 });
    await raw.add("run", { inboundId: 2, sessionKey: "s" }, { jobId: "run-2", delay: 10 * 60_000 });
    await raw.add("run", { inboundId: 3, sessionKey: "s" }, { jobId: "run-3" });
    expect(await queue.promote(["run-1", "run-3", "run-404"])).toBe(1);
    expect(await raw.getJobState("run-1")).toBe("waiting");
    expect(await raw.getJobState("run-2")).toBe("delayed");
    expect(await raw.getJobState("run-3")).toBe("waiting");
    expect(await queue.promote(["run-1"])).toBe(0);
  });

  it("a parked run is promoted when the run holding its session finishes, long before its safety delay", async () => {
    const { queue, queueName } = await producer();
    const lock = new RedisSessionLock(redis());
    const first = deferred<void>();
    const attempts: number[] = [];
    await worker(queueName, lockingProcessor(lock, new Map([[1, first.promise]]), attempts));
    const settled = settledIds(queue, 2);
    await queue.enqueue({ inboundId: 1, sessionKey: "s" });
    while (!attempts.includes(1)) await new Promise((resolve) => setTimeout(resolve, 10));
    await queue.enqueue({ inboundId: 2, sessionKey: "s" });
    const probe = redis();
    while ((await probe.scard(`${SESSION_WAITERS_PREFIX}s`)) === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(attempts).toEqual([1, 2]);

    first.resolve();
    expect(await settled).toEqual([
      [1, "done"],
      [2, "done"],
    ]);
    expect(attempts).toEqual([1, 2, 2]);
  });

  it("a lease released outside the workers (a gateway command) wakes the parked run through wakingSessionLock", async () => {
    const { queue, queueName } = await producer();
    const connection = redis();
    const waiters = new RedisSessionWaiters(connection, { promote: (jobIds) => queue.promote(jobIds) });
    const gatewayLock = wakingSessionLock(new RedisSessionLock(connection), waiters, silentLogger);
    const command: SessionLease | undefined = await gatewayLock.tryAcquire("s", 30_000);
    expect(command).toBeDefined();
    const attempts: number[] = [];
    await worker(queueName, lockingProcessor(new RedisSessionLock(redis()), new Map(), attempts));
    const settled = settledIds(queue, 1);
    await queue.enqueue({ inboundId: 7, sessionKey: "s" });
    while ((await connection.scard(`${SESSION_WAITERS_PREFIX}s`)) === 0) await new Promise((resolve) => setTimeout(resolve, 10));

    await command?.release();
    expect(await settled).toEqual([[7, "done"]]);
    expect(attempts).toEqual([7, 7]);
  });

  it("a run whose waiter set was woken and cleared while it was parking (the session taken again) is woken by the next release", async () => {
    const { queue, queueName } = await producer();
    const connection = redis();
    const waiters = new RedisSessionWaiters(connection, { promote: (jobIds) => queue.promote(jobIds) });
    const gatewayLock = wakingSessionLock(new RedisSessionLock(connection), waiters, silentLogger);
    // Held far past the test, so only a wake (not the lock's expiry or the safety delay) can start the parked run.
    const holder = await gatewayLock.tryAcquire("s", 10 * 60_000);
    expect(holder).toBeDefined();
    const attempts: number[] = [];
    const waker = redis();
    const host = new BullMqWorkerHost({
      redisUrl: server.url,
      queueName,
      processor: lockingProcessor(new RedisSessionLock(redis()), new Map(), attempts),
      concurrency: 1,
      parkedSafetyDelayMs: 10 * 60_000,
      // Read while the run parks: a release and wake by one holder, the session taken by the next, land right here.
      now: () => {
        void waker.del(`${SESSION_WAITERS_PREFIX}s`);
        return Date.now();
      },
    });
    closers.push(() => host.close({ drainMs: 1_000 }));
    await host.ready();
    const settled = settledIds(queue, 1);
    await queue.enqueue({ inboundId: 9, sessionKey: "s" });
    while ((await connection.zcard(`bull:${queueName}:delayed`)) === 0) await new Promise((resolve) => setTimeout(resolve, 10));

    await holder?.release();
    const notWoken = new Promise<"not woken">((resolve) => setTimeout(() => resolve("not woken"), 10_000).unref());
    expect(await Promise.race([settled, notWoken])).toEqual([[9, "done"]]);
    expect(attempts).toEqual([9, 9]);
  }, 20_000);

  it("a parked run whose waker died runs after its safety delay", async () => {
    const { queue, queueName } = await producer();
    const connection = redis();
    // A holder that never releases: its lease just expires, like a process killed mid-run.
    await connection.set("hermes:lock:s", "crashed-holder", "PX", 300);
    const attempts: number[] = [];
    await worker(queueName, lockingProcessor(new RedisSessionLock(redis()), new Map(), attempts), 500);
    const settled = settledIds(queue, 1);
    await queue.enqueue({ inboundId: 3, sessionKey: "s" });
    expect(await settled).toEqual([[3, "done"]]);
    expect(attempts).toEqual([3, 3]);
  });
});
