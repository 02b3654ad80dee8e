import { randomUUID } from "node:crypto";
import os from "node:os";
import type { Logger } from "@hermes/agent";
import type { Redis } from "ioredis";
import { ioredis } from "../queue/load-ioredis.js";

/** The Redis key naming the active gateway. */
export const GATEWAY_LEASE_KEY = "hermes:gateway:active";
/** Long enough to ride out a slow event loop, short enough that a standby takes over well within 15 s. */
export const GATEWAY_LEASE_TTL_MS = 10_000;

/** Who holds the lease, as standbys show it. */
export interface GatewayLeaseHolder {
  pid: number;
  host: string;
  /** When it took the lease (ISO 8601). */
  since: string;
}

export type LeaseAcquisition =
  | { outcome: "acquired" }
  | { outcome: "held"; holder: GatewayLeaseHolder | undefined }
  | { outcome: "unreachable"; error: Error };

export type LeaseRenewal = { outcome: "renewed" } | { outcome: "lost"; holder: GatewayLeaseHolder | undefined } | { outcome: "unreachable"; error: Error };

export interface GatewayLease {
  tryAcquire(): Promise<LeaseAcquisition>;
  /** Extends a held lease; one that lapsed and that nobody took meanwhile (e.g. Redis restarted) is taken again. */
  renew(): Promise<LeaseRenewal>;
  /** Gives the lease up (if still held) so a standby need not wait for it to expire. */
  release(): Promise<void>;
  /**
   * Acts as the holder without Redis having confirmed it (Redis unreachable when this gateway started): the next
   * `renew` takes the lease if nobody holds it, or reports it lost to the gateway that does.
   */
  assume(): void;
  close(): Promise<void>;
}

export interface RedisGatewayLeaseOptions {
  key?: string;
  ttlMs?: number;
  pid?: number;
  host?: string;
  now?: () => number;
  newToken?: () => string;
}

// Compare-and-set in one script: a lease that lapsed and was taken over can never extend or delete the new holder's.
// Returns 1 when renewed, otherwise the current holder's value.
const RENEW_IF_OWNER = `local v = redis.call("GET", KEYS[1])
if v == ARGV[1] then redis.call("PEXPIRE", KEYS[1], ARGV[2]) return 1 end
if not v then redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2]) return 1 end
return v`;
const RELEASE_IF_OWNER = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`;

/** The active-gateway lease in Redis: `SET NX PX` with a value naming this process and an unguessable token. */
export class RedisGatewayLease implements GatewayLease {
  private readonly key: string;
  private readonly ttlMs: number;
  private readonly pid: number;
  private readonly host: string;
  private readonly now: () => number;
  private readonly newToken: () => string;
  private held: string | undefined;

  constructor(
    private readonly redis: Redis,
    options: RedisGatewayLeaseOptions = {},
  ) {
    this.key = options.key ?? GATEWAY_LEASE_KEY;
    this.ttlMs = options.ttlMs ?? GATEWAY_LEASE_TTL_MS;
    this.pid = options.pid ?? process.pid;
    this.host = options.host ?? os.hostname();
    this.now = options.now ?? Date.now;
    this.newToken = options.newToken ?? randomUUID;
  }

  async tryAcquire(): Promise<LeaseAcquisition> {
    const value = this.newValue();
    try {
      if ((await this.redis.set(this.key, value, "PX", this.ttlMs, "NX")) === "OK") {
        this.held = value;
        return { outcome: "acquired" };
      }
      return { outcome: "held", holder: parseHolder(await this.redis.get(this.key)) };
    } catch (error) {
      return { outcome: "unreachable", error: asError(error) };
    }
  }

  async renew(): Promise<LeaseRenewal> {
    const held = this.held;
    if (held === undefined) return { outcome: "lost", holder: undefined };
    try {
      const reply = await this.redis.eval(RENEW_IF_OWNER, 1, this.key, held, this.ttlMs);
      if (reply === 1) return { outcome: "renewed" };
      this.held = undefined;
      return { outcome: "lost", holder: parseHolder(typeof reply === "string" ? reply : null) };
    } catch (error) {
      return { outcome: "unreachable", error: asError(error) };
    }
  }

  assume(): void {
    this.held ??= this.newValue();
  }

  private newValue(): string {
    return JSON.stringify({ token: this.newToken(), pid: this.pid, host: this.host, since: new Date(this.now()).toISOString() });
  }

  async release(): Promise<void> {
    const held = this.held;
    this.held = undefined;
    if (held === undefined) return;
    await this.redis.eval(RELEASE_IF_OWNER, 1, this.key, held).catch(() => undefined);
  }

  async close(): Promise<void> {
    if (this.redis.status === "end") return;
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

/**
 * A lease on its own connection that fails fast: a command during an outage is rejected within a couple of seconds
 * (instead of queueing until Redis returns), so the gateway keeps deciding on time. An outage is logged once.
 */
export function connectGatewayLease(redisUrl: string, logger: Logger, options: RedisGatewayLeaseOptions = {}): RedisGatewayLease {
  const { Redis } = ioredis();
  const redis = new Redis(redisUrl, { connectionName: "hermes-gateway-lease", maxRetriesPerRequest: 1, commandTimeout: 2_000, connectTimeout: 2_000 });
  let down = false;
  redis.on("error", (error: unknown) => {
    if (down) return;
    down = true;
    logger.warn("redis connection error", { connection: "hermes-gateway-lease", error });
  });
  redis.on("ready", () => {
    down = false;
  });
  return new RedisGatewayLease(redis, options);
}

function parseHolder(value: string | null): GatewayLeaseHolder | undefined {
  if (value === null) return undefined;
  try {
    const parsed = JSON.parse(value) as Partial<GatewayLeaseHolder>;
    if (typeof parsed.pid !== "number" || typeof parsed.host !== "string" || typeof parsed.since !== "string") return undefined;
    return { pid: parsed.pid, host: parsed.host, since: parsed.since };
  } catch {
    return undefined;
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
