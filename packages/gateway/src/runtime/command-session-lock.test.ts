import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "@hermes/agent";
import { Redis } from "ioredis";
import { startRedis, type TestRedis } from "../../../../test/support/redis-server.js";
import { BullMqQueue } from "../queue/bullmq-queue.js";
import { BullMqWorkerHost } from "../queue/bullmq-worker-host.js";
import { InMemorySessionLock, RedisSessionLock } from "../queue/session-lock.js";
import { InMemorySessionWaiters, SESSION_WAITERS_PREFIX, wakingSessionLock } from "../queue/session-waiters.js";
import { deferred, ManualScheduler, settleCallbacks } from "../queue/testing.js";
import type { SettledOutcome } from "../queue/types.js";
import { createWithSessionLock } from "./command-session-lock.js";

describe("createWithSessionLock (embedded)", () => {
  function setUp() {
    const locks = new InMemorySessionLock();
    const waiters = new InMemorySessionWaiters();
    const lock = wakingSessionLock(locks, waiters, silentLogger);
    const scheduler = new ManualScheduler();
    return { locks, lock, scheduler, withSessionLock: createWithSessionLock({ lock, waiters, scheduler, logger: silentLogger, waitMs: 5_000 }) };
  }

  it("runs the work holding the lock and releases it afterwards", async () => {
    const { locks, withSessionLock } = setUp();
    const result = await withSessionLock("s", async () => locks.isHeld("s"));
    expect(result).toEqual({ ok: true, value: true });
    expect(locks.isHeld("s")).toBe(false);
  });

  it("waits for the holder's release (woken by it) and then runs", async () => {
    const { lock, withSessionLock } = setUp();
    const run = await lock.tryAcquire("s", 60_000);
    let ran = false;
    const command = withSessionLock("s", async () => {
      ran = true;
    });
    await settleCallbacks();
    expect(ran).toBe(false);
    await run?.release();
    expect(await command).toEqual({ ok: true, value: undefined });
    expect(ran).toBe(true);
  });

  it("answers busy without running the work when the holder keeps the lock past the wait", async () => {
    const { lock, scheduler, withSessionLock } = setUp();
    await lock.tryAcquire("s", 60_000);
    let ran = false;
    const command = withSessionLock("s", async () => {
      ran = true;
    });
    await settleCallbacks();
    scheduler.fire(5_000);
    expect(await command).toEqual({ ok: false, reason: "busy" });
    expect(ran).toBe(false);
  });

  it("releases the lock when the work throws", async () => {
    const { locks, withSessionLock } = setUp();
    await expect(withSessionLock("s", async () => Promise.reject(new Error("store failed")))).rejects.toThrow("store failed");
    expect(locks.isHeld("s")).toBe(false);
  });

  it("withdraws its wait when the lock cannot be asked (Redis unreachable), so nothing stays parked", async () => {
    const waiters = new InMemorySessionWaiters();
    const unreachable = { tryAcquire: async () => Promise.reject(new Error("redis unreachable")) };
    const withSessionLock = createWithSessionLock({ lock: unreachable, waiters, scheduler: new ManualScheduler(), logger: silentLogger });
    await expect(withSessionLock("s", async () => undefined)).rejects.toThrow("redis unreachable");
    expect(waiters.count("s")).toBe(0);
  });
});

describe("createWithSessionLock with Redis (a gateway beside BullMQ workers)", () => {
  let server: TestRedis;
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

  it("a run parked behind a command starts when the command releases, and a command waits for a run until it settles", async () => {
    const queue = new BullMqQueue({ redisUrl: server.url, queueName: "command-lock" });
    closers.push(() => queue.close());
    await queue.ready();
    const commandWaiters = new InMemorySessionWaiters();
    queue.onSettled((job) => void commandWaiters.wake(job.sessionKey));
    const withSessionLock = createWithSessionLock({ lock: queue.sessionLock(commandWaiters), waiters: commandWaiters, logger: silentLogger });

    const workerConnection = new Redis(server.url, { maxRetriesPerRequest: null });
    closers.push(async () => void workerConnection.disconnect());
    const workerLock = new RedisSessionLock(workerConnection);
    const runGoesOn = deferred<void>();
    const attempts: number[] = [];
    const host = new BullMqWorkerHost({
      redisUrl: server.url,
      queueName: "command-lock",
      concurrency: 2,
      parkedSafetyDelayMs: 10 * 60_000,
      processor: async (job) => {
        attempts.push(job.inboundId);
        const lease = await workerLock.tryAcquire(job.sessionKey, 60_000);
        if (!lease) return "retry_later";
        try {
          if (job.inboundId === 2) await runGoesOn.promise;
        } finally {
          await lease.release();
        }
        return "done";
      },
    });
    closers.push(() => host.close({ drainMs: 1_000 }));
    await host.ready();
    const settled: Array<[number, SettledOutcome]> = [];
    queue.onSettled((job, outcome) => settled.push([job.inboundId, outcome]));

    const probe = new Redis(server.url);
    closers.push(async () => void probe.disconnect());
    const firstCommand = await withSessionLock("s", async () => {
      await queue.enqueue({ inboundId: 1, sessionKey: "s" });
      while ((await probe.scard(`${SESSION_WAITERS_PREFIX}s`)) === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      return attempts.slice();
    });
    // The run tried while the command held the session, and parked.
    expect(firstCommand).toEqual({ ok: true, value: [1] });
    while (settled.length < 1) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(settled).toEqual([[1, "done"]]);
    expect(attempts).toEqual([1, 1]);

    await queue.enqueue({ inboundId: 2, sessionKey: "s" });
    while (!attempts.includes(2)) await new Promise((resolve) => setTimeout(resolve, 10));
    let commandRan = false;
    const secondCommand = withSessionLock("s", async () => {
      commandRan = true;
      return settled.length;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(commandRan).toBe(false);
    runGoesOn.resolve();
    // Woken by the run's settling, so it acted only after the run had finished.
    expect(await secondCommand).toEqual({ ok: true, value: 2 });
  });
});
