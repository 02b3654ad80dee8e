import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startRedis, type TestRedis } from "../../../../test/support/redis-server.js";
import { capturingLogger } from "../outbound/testing.js";
import { connectGatewayLease, GATEWAY_LEASE_KEY, RedisGatewayLease } from "./gateway-lease.js";

let server: TestRedis;
let redis: Redis;
const leases: RedisGatewayLease[] = [];

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
  for (const lease of leases.splice(0)) await lease.close();
  await redis.quit();
});

const SINCE = Date.parse("2026-01-02T03:04:05.000Z");

function lease(pid: number, ttlMs = 10_000): RedisGatewayLease {
  const made = new RedisGatewayLease(new Redis(server.url), { pid, host: "box", ttlMs, now: () => SINCE });
  leases.push(made);
  return made;
}

async function until(check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await check()); ) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("RedisGatewayLease on a real redis-server", () => {
  it("of two gateways one takes the lease; the other sees who holds it", async () => {
    const a = lease(101);
    const b = lease(202);
    expect(await a.tryAcquire()).toEqual({ outcome: "acquired" });
    expect(await b.tryAcquire()).toEqual({ outcome: "held", holder: { pid: 101, host: "box", since: "2026-01-02T03:04:05.000Z" } });
    expect(await a.renew()).toEqual({ outcome: "renewed" });
    expect(await b.renew()).toMatchObject({ outcome: "lost" });
    const ttl = await redis.pttl(GATEWAY_LEASE_KEY);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(10_000);
  });

  it("expires unless renewed; then the other takes it and the old holder's renewal finds it lost", async () => {
    const a = lease(101, 200);
    const b = lease(202, 200);
    expect((await a.tryAcquire()).outcome).toBe("acquired");
    await until(async () => (await b.tryAcquire()).outcome === "acquired");
    expect(await a.renew()).toEqual({ outcome: "lost", holder: { pid: 202, host: "box", since: "2026-01-02T03:04:05.000Z" } });
    // A lost lease stays lost: the old holder cannot extend or delete the new one's.
    await a.release();
    expect(await b.renew()).toEqual({ outcome: "renewed" });
  });

  it("released, the lease is free at once; a lapsed lease nobody took is taken again on renewal", async () => {
    const a = lease(101);
    const b = lease(202);
    await a.tryAcquire();
    await a.release();
    expect(await b.tryAcquire()).toEqual({ outcome: "acquired" });
    // As after a Redis restart: the key is gone, and the holder keeps its role.
    await redis.del(GATEWAY_LEASE_KEY);
    expect(await b.renew()).toEqual({ outcome: "renewed" });
    expect(await a.tryAcquire()).toMatchObject({ outcome: "held", holder: { pid: 202 } });
  });

  it("answers unreachable, promptly, while Redis is down", async () => {
    const { logger, entries } = capturingLogger();
    const gone = connectGatewayLease("redis://127.0.0.1:1", logger);
    leases.push(gone);
    expect(await gone.tryAcquire()).toMatchObject({ outcome: "unreachable" });
    expect(entries.filter((entry) => entry.msg === "redis connection error")).toHaveLength(1);
  });
});
