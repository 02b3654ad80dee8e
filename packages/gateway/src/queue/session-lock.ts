import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { SessionLease, SessionLock } from "./types.js";

/** Namespace of session locks in Redis (and the key a lease reports). */
export const SESSION_LOCK_PREFIX = "hermes:lock:";

export interface SessionLockOptions {
  /** Makes the owner token of a lease; unguessable by default so one holder cannot release another's lock. */
  newToken?: () => string;
}

export interface InMemorySessionLockOptions extends SessionLockOptions {
  now?: () => number;
}

interface HeldLock {
  token: string;
  expiresAt: number;
}

/** Session exclusivity inside one process (embedded mode); same contract as the Redis lock, including expiry. */
export class InMemorySessionLock implements SessionLock {
  private readonly held = new Map<string, HeldLock>();
  private readonly now: () => number;
  private readonly newToken: () => string;

  constructor(options: InMemorySessionLockOptions = {}) {
    this.now = options.now ?? Date.now;
    this.newToken = options.newToken ?? randomUUID;
  }

  async tryAcquire(sessionKey: string, ttlMs: number): Promise<SessionLease | undefined> {
    const key = SESSION_LOCK_PREFIX + sessionKey;
    if (this.holding(key) !== undefined) return undefined;
    const token = this.newToken();
    this.held.set(key, { token, expiresAt: this.now() + ttlMs });
    return {
      key,
      renew: async () => {
        const current = this.holding(key);
        if (current?.token !== token) return false;
        current.expiresAt = this.now() + ttlMs;
        return true;
      },
      release: async () => {
        if (this.holding(key)?.token === token) this.held.delete(key);
      },
    };
  }

  /** Whether the session's lock is held (and not expired) right now. */
  isHeld(sessionKey: string): boolean {
    return this.holding(SESSION_LOCK_PREFIX + sessionKey) !== undefined;
  }

  private holding(key: string): HeldLock | undefined {
    const current = this.held.get(key);
    if (current === undefined || current.expiresAt > this.now()) return current;
    this.held.delete(key);
    return undefined;
  }
}

// Compare-and-act in one script so a lease that expired and was taken over cannot touch the new holder's lock.
const RENEW_IF_OWNER = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("PEXPIRE", KEYS[1], ARGV[2]) end return 0`;
const RELEASE_IF_OWNER = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`;

/** Session exclusivity across gateway and worker processes: `SET NX PX` with an owner token. */
export class RedisSessionLock implements SessionLock {
  private readonly newToken: () => string;

  constructor(
    private readonly redis: Redis,
    options: SessionLockOptions = {},
  ) {
    this.newToken = options.newToken ?? randomUUID;
  }

  async tryAcquire(sessionKey: string, ttlMs: number): Promise<SessionLease | undefined> {
    const key = SESSION_LOCK_PREFIX + sessionKey;
    const token = this.newToken();
    const reply = await this.redis.set(key, token, "PX", ttlMs, "NX");
    if (reply !== "OK") return undefined;
    return {
      key,
      renew: async () => (await this.redis.eval(RENEW_IF_OWNER, 1, key, token, ttlMs)) === 1,
      release: async () => {
        await this.redis.eval(RELEASE_IF_OWNER, 1, key, token);
      },
    };
  }
}
