import type { Logger } from "@hermes/agent";
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { startRedis, type TestRedis } from "../../../../test/support/redis-server.js";
import { RedisProbe } from "./redis-probe.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function recordingLogger(lines: string[]): Logger {
  const logger: Logger = {
    debug: () => undefined,
    info: (message) => lines.push(`info ${message}`),
    warn: (message) => lines.push(`warn ${message}`),
    error: (message) => lines.push(`error ${message}`),
    child: () => logger,
  };
  return logger;
}

async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("RedisProbe", () => {
  it("answers while Redis is up, names host:port and the cause while it is down, and logs the outage once", async () => {
    const redis: TestRedis = await startRedis();
    cleanups.push(() => redis.stop());
    const lines: string[] = [];
    const probe = new RedisProbe(redis.url, recordingLogger(lines));
    cleanups.push(() => probe.close());
    const where = redis.url.replace("redis://", "");

    await eventually(async () => (await probe.check()).ok, "the first PONG");
    expect(await probe.check()).toEqual({ ok: true, detail: `${where} answered PONG` });

    await redis.stop();
    await eventually(async () => !(await probe.check()).ok, "the probe to notice");
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const down = await probe.check();
    expect(down.detail).toMatch(new RegExp(`^${where} .*ECONNREFUSED`));
    expect(lines).toEqual(["warn redis unreachable; readiness reports it until it answers"]);
  });

  it("gives up on a PING that Redis does not answer instead of leaving it pending", async () => {
    const redis: TestRedis = await startRedis();
    cleanups.push(() => redis.stop());
    const probe = new RedisProbe(redis.url, recordingLogger([]));
    cleanups.push(() => probe.close());
    await eventually(async () => (await probe.check()).ok, "the first PONG");

    const pauser = new Redis(redis.url);
    cleanups.push(() => pauser.disconnect());
    // Every client's commands wait, PINGs included, as with a Redis that is stuck.
    await pauser.call("CLIENT", "PAUSE", "4000", "ALL");
    const paused = await probe.check();
    expect(paused.ok).toBe(false);
    expect(paused.detail).toMatch(/timed out/i);
  });

  it("never leaks the URL's password", async () => {
    const lines: string[] = [];
    const probe = new RedisProbe("redis://:hunter2@127.0.0.1:1", recordingLogger(lines));
    cleanups.push(() => probe.close());
    await eventually(async () => (await probe.check()).detail.includes("ECONNREFUSED"), "a refused connection");
    expect(JSON.stringify([await probe.check(), lines])).not.toContain("hunter2");
  });
});
