import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { startRedis, startRedisOnPort, type TestRedis } from "../../../../test/support/redis-server.js";
import { capturingLogger, type LogEntry } from "../outbound/testing.js";
import { alwaysActive, leaseElection, type ActiveDuty, type GatewayElection } from "./gateway-election.js";
import { connectGatewayLease, GATEWAY_LEASE_KEY, type RedisGatewayLease } from "./gateway-lease.js";
import { waitUntil as until } from "../../../../test/support/wait-until.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function redisServer(): Promise<TestRedis> {
  const server = await startRedis();
  cleanups.push(() => server.stop());
  return server;
}

interface Contender {
  election: GatewayElection;
  lease: RedisGatewayLease;
  duties: string[];
  logs: LogEntry[];
}

/** A gateway's election with short intervals, recording when it takes up and puts down its duty. */
function contender(server: TestRedis, pid: number, ttlMs = 400, takeUp: () => Promise<void> = async () => undefined): Contender {
  const { logger, entries } = capturingLogger();
  const duties: string[] = [];
  const duty: ActiveDuty = {
    takeUp: async () => {
      duties.push("up");
      await takeUp();
    },
    putDown: async () => void duties.push("down"),
  };
  const lease = connectGatewayLease(server.url, logger, { pid, host: "box", ttlMs });
  const election = leaseElection(lease, { logger, acquireEveryMs: 50, renewEveryMs: 100 });
  const started = election.start(duty);
  cleanups.push(async () => {
    await started;
    await election.halt();
    await election.release();
  });
  return { election, lease, duties, logs: entries };
}

describe("leaseElection on a real redis-server", () => {
  it("makes exactly one of two gateways active; the standby knows which one", async () => {
    const server = await redisServer();
    const a = contender(server, 101);
    await until(() => a.election.role() === "active", "a to become active");
    const b = contender(server, 202);
    await until(() => b.election.activeGateway() !== undefined, "b to see a");
    expect(b.election.role()).toBe("standby");
    expect(b.election.activeGateway()).toMatchObject({ pid: 101, host: "box" });
    expect(a.duties).toEqual(["up"]);
    expect(b.duties).toEqual([]);
    expect(a.logs.map((entry) => entry.msg)).toContain("became the active gateway");
  });

  it("steps down when its renewal finds another owner, after which exactly one gateway becomes active again", async () => {
    const server = await redisServer();
    const a = contender(server, 101);
    await until(() => a.election.role() === "active", "a to become active");
    const b = contender(server, 202);
    await until(() => b.election.activeGateway() !== undefined, "b to see a");

    // Someone else's value in the key, as when a paused gateway's lease lapsed and another took it.
    const redis = new Redis(server.url);
    await redis.set(GATEWAY_LEASE_KEY, JSON.stringify({ token: "x", pid: 303, host: "elsewhere", since: "2026-01-01T00:00:00.000Z" }), "PX", 300);
    await redis.quit();
    await until(() => a.duties.includes("down"), "a to step down");
    expect(a.election.role()).toBe("standby");
    expect(a.logs).toContainEqual(expect.objectContaining({ level: "warn", msg: "another gateway took the active-gateway lease; stepping down to standby", active: expect.objectContaining({ pid: 303 }) }));

    // The stranger never renews: one of the two takes the lease again, and only one.
    await until(() => a.election.role() === "active" || b.election.role() === "active", "a new active gateway");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect([a.election.role(), b.election.role()].filter((role) => role === "active")).toHaveLength(1);
  });

  it("lets the standby take over once the active one stops renewing (it died)", async () => {
    const server = await redisServer();
    const a = contender(server, 101);
    await until(() => a.election.role() === "active", "a to become active");
    const b = contender(server, 202);
    await until(() => b.election.activeGateway() !== undefined, "b to see a");
    // Renewals that never reach Redis again, as from a process that is gone.
    await a.lease.close();
    await until(() => b.election.role() === "active", "b to take over");
    expect(b.duties).toEqual(["up"]);
    expect(b.logs.map((entry) => entry.msg)).toContain("became the active gateway");
  });

  it("keeps renewing while a halted gateway shuts down, so a standby takes over only once it releases the lease", async () => {
    const server = await redisServer();
    const a = contender(server, 101);
    await until(() => a.election.role() === "active", "a to become active");
    const b = contender(server, 202);
    await until(() => b.election.activeGateway() !== undefined, "b to see a");
    await a.election.halt();
    // A graceful stop still flushes replies after the halt; a standby taking over meanwhile would send beside it.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(b.election.role()).toBe("standby");
    expect(b.duties).toEqual([]);
    await a.election.release();
    await until(() => b.election.role() === "active", "b to take over");
    expect(b.duties).toEqual(["up"]);
  });

  it("hands over at once on release, and a halted gateway no longer takes the lease", async () => {
    const server = await redisServer();
    const a = contender(server, 101, 60_000);
    await until(() => a.election.role() === "active", "a to become active");
    const b = contender(server, 202, 60_000);
    await until(() => b.election.activeGateway() !== undefined, "b to see a");
    await a.election.halt();
    await a.election.release();
    await until(() => b.election.role() === "active", "b to take over");
    expect(b.duties).toEqual(["up"]);
  });

  it("gives the lease up when it cannot take up the duty, so a standby that can becomes active", async () => {
    const server = await redisServer();
    const a = contender(server, 101, 60_000, async () => {
      throw new Error("the adapters could not be made");
    });
    await until(() => a.duties.includes("down"), "a to put down what it took up");
    const b = contender(server, 202, 60_000);
    await until(() => b.election.role() === "active", "b to become active");
    expect(b.duties).toEqual(["up"]);
    expect(a.election.role()).toBe("standby");
    expect(a.logs).toContainEqual(expect.objectContaining({ level: "error", msg: "changing the gateway's role failed" }));
    expect(a.logs.map((entry) => entry.msg)).not.toContain("became the active gateway");
  });

  it("stays active through a Redis outage, logging it once", async () => {
    const server = await startRedis();
    const a = contender(server, 101);
    await until(() => a.election.role() === "active", "a to become active");
    await server.stop();
    await until(() => a.logs.some((entry) => entry.msg.startsWith("cannot renew the active-gateway lease")), "the outage to be noticed");
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(a.election.role()).toBe("active");
    expect(a.duties).toEqual(["up"]);
    expect(a.logs.filter((entry) => entry.msg.startsWith("cannot renew the active-gateway lease"))).toHaveLength(1);
  });

  it("acts as the active gateway when Redis cannot be reached at start, so intake does not wait for Redis", async () => {
    const { logger, entries } = capturingLogger();
    const duties: string[] = [];
    const election = leaseElection(connectGatewayLease("redis://127.0.0.1:1", logger), { logger, acquireEveryMs: 50, renewEveryMs: 50 });
    await election.start({ takeUp: async () => void duties.push("up"), putDown: async () => void duties.push("down") });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(election.role()).toBe("active");
    expect(duties).toEqual(["up"]);
    await election.halt();
    await election.release();
    expect(entries).toContainEqual(expect.objectContaining({ level: "warn", msg: "cannot reach Redis to elect the active gateway; acting as the active one until it answers" }));
  });

  it("once Redis answers, a gateway that started during the outage takes the free lease, or steps down to the one holding it", async () => {
    const first = await startRedis();
    const port = Number(new URL(first.url).port);
    await first.stop();
    const free = contender({ url: `redis://127.0.0.1:${port}` } as TestRedis, 501, 400);
    const held = contender({ url: `redis://127.0.0.1:${port}` } as TestRedis, 502, 400);
    await until(() => free.election.role() === "active" && held.election.role() === "active", "both to act as active during the outage");
    const server = await startRedisOnPort(port);
    cleanups.unshift(() => server.stop());
    await until(() => free.election.role() === "standby" || held.election.role() === "standby", "one of them to step down once Redis answers");
    const active = free.election.role() === "active" ? free : held;
    const standby = active === free ? held : free;
    expect(active.election.role()).toBe("active");
    expect(standby.duties).toEqual(["up", "down"]);
    const client = new Redis(server.url);
    cleanups.unshift(async () => void client.disconnect());
    expect(JSON.parse((await client.get(GATEWAY_LEASE_KEY)) ?? "{}")).toMatchObject({ pid: active === free ? 501 : 502 });
  });
});

describe("alwaysActive", () => {
  it("takes up the duty at start and is active", async () => {
    const duties: string[] = [];
    const election = alwaysActive();
    await election.start({ takeUp: async () => void duties.push("up"), putDown: async () => void duties.push("down") });
    expect(election.role()).toBe("active");
    expect(duties).toEqual(["up"]);
  });
});
