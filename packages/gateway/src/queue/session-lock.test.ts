import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { startRedis, type TestRedis } from "../../../../test/support/redis-server.js";
import { InMemorySessionLock, RedisSessionLock, SESSION_LOCK_PREFIX } from "./session-lock.js";

describe("InMemorySessionLock", () => {
  it("grants a session to one holder at a time and frees it on release", async () => {
    const lock = new InMemorySessionLock();
    const lease = await lock.tryAcquire("session-a", 1_000);
    expect(lease?.key).toBe(`${SESSION_LOCK_PREFIX}session-a`);
    expect(await lock.tryAcquire("session-a", 1_000)).toBeUndefined();
    expect(await lock.tryAcquire("session-b", 1_000)).toBeDefined();

    await lease?.release();
    expect(await lock.tryAcquire("session-a", 1_000)).toBeDefined();
  });

  it("lets a lease expire unless renewed, after which the old lease can neither renew nor release", async () => {
    let now = 1_000;
    const lock = new InMemorySessionLock({ now: () => now });
    const first = await lock.tryAcquire("s", 100);
    now += 90;
    expect(await first?.renew()).toBe(true);
    now += 90;
    expect(await lock.tryAcquire("s", 100)).toBeUndefined();

    now += 11;
    const second = await lock.tryAcquire("s", 100);
    expect(second).toBeDefined();
    expect(await first?.renew()).toBe(false);
    await first?.release();
    expect(await lock.tryAcquire("s", 100)).toBeUndefined();
    expect(await second?.renew()).toBe(true);
  });
});

describe("RedisSessionLock", () => {
  let server: TestRedis;
  let redis: Redis;

  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    await server.stop();
  });
  beforeEach(async () => {
    redis = new Redis(server.url);
    await redis.flushall();
  });
  afterEach(async () => {
    await redis.quit();
  });

  it("acquires with SET NX PX under the hermes:lock: prefix, and only once", async () => {
    const lock = new RedisSessionLock(redis, { newToken: () => "token-1" });
    const lease = await lock.tryAcquire("agent:main:telegram:dm:42", 5_000);
    expect(lease?.key).toBe("hermes:lock:agent:main:telegram:dm:42");
    expect(await redis.get("hermes:lock:agent:main:telegram:dm:42")).toBe("token-1");
    const ttl = await redis.pttl("hermes:lock:agent:main:telegram:dm:42");
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(5_000);

    expect(await lock.tryAcquire("agent:main:telegram:dm:42", 5_000)).toBeUndefined();
    expect(await lock.tryAcquire("agent:main:telegram:dm:43", 5_000)).toBeDefined();
  });

  it("is shared by every connection: another process's lock sees the session taken", async () => {
    const other = new Redis(server.url);
    try {
      const mine = await new RedisSessionLock(redis).tryAcquire("s", 5_000);
      expect(mine).toBeDefined();
      expect(await new RedisSessionLock(other).tryAcquire("s", 5_000)).toBeUndefined();
      await mine?.release();
      expect(await new RedisSessionLock(other).tryAcquire("s", 5_000)).toBeDefined();
    } finally {
      await other.quit();
    }
  });

  it("renews the TTL while the token matches", async () => {
    const lease = await new RedisSessionLock(redis).tryAcquire("s", 1_000);
    await redis.pexpire(`${SESSION_LOCK_PREFIX}s`, 10);
    expect(await lease?.renew()).toBe(true);
    expect(await redis.pttl(`${SESSION_LOCK_PREFIX}s`)).toBeGreaterThan(10);
  });

  it("release frees the session", async () => {
    const lock = new RedisSessionLock(redis);
    const lease = await lock.tryAcquire("s", 5_000);
    await lease?.release();
    expect(await redis.exists(`${SESSION_LOCK_PREFIX}s`)).toBe(0);
    expect(await lock.tryAcquire("s", 5_000)).toBeDefined();
  });

  it("an expired lease is taken over, and the old holder can then neither renew nor release", async () => {
    let next = 0;
    const lock = new RedisSessionLock(redis, { newToken: () => `token-${++next}` });
    const old = await lock.tryAcquire("s", 5_000);
    // Expire it the way time would, without waiting for it.
    await redis.pexpire(`${SESSION_LOCK_PREFIX}s`, 1);
    let current = await lock.tryAcquire("s", 5_000);
    while (current === undefined) current = await lock.tryAcquire("s", 5_000);

    expect(await old?.renew()).toBe(false);
    await old?.release();
    expect(await redis.get(`${SESSION_LOCK_PREFIX}s`)).toBe(`token-${next}`);
    expect(await current.renew()).toBe(true);
  });

  it("a lease whose key was replaced by a different token is not renewed or released", async () => {
    const lease = await new RedisSessionLock(redis).tryAcquire("s", 5_000);
    await redis.set(`${SESSION_LOCK_PREFIX}s`, "someone-else", "PX", 5_000);
    expect(await lease?.renew()).toBe(false);
    await lease?.release();
    expect(await redis.get(`${SESSION_LOCK_PREFIX}s`)).toBe("someone-else");
  });
});
