import type { Logger } from "@hermes/agent";
import type { Redis } from "ioredis";
import { SESSION_LOCK_PREFIX } from "./session-lock.js";
import type { SessionLease, SessionLock } from "./types.js";

/** Namespace of the sets of job ids parked until a session's lock is released. */
export const SESSION_WAITERS_PREFIX = "hermes:waiters:";

/**
 * How long a parked run waits when nobody wakes it (its waker's process died before releasing): long enough that
 * it is not polling, short enough that a crash costs a waiting message at most this much on top of the lock expiry.
 */
export const PARKED_SAFETY_DELAY_MS = 30_000;

/** Whoever releases a session's lock calls `wake`, so the runs parked behind it start without polling. */
export interface SessionWakeup {
  wake(sessionKey: string): Promise<void>;
}

/** Runs parked in this process (embedded mode), each waiting for its session's lock to be released. */
export class InMemorySessionWaiters implements SessionWakeup {
  private readonly parked = new Map<string, Set<() => void>>();

  /** Calls `onWake` once, at the next release of the session's lock; the returned function withdraws it. */
  park(sessionKey: string, onWake: () => void): () => void {
    let waiters = this.parked.get(sessionKey);
    if (waiters === undefined) {
      waiters = new Set();
      this.parked.set(sessionKey, waiters);
    }
    const entry = (): void => onWake();
    waiters.add(entry);
    return () => {
      const current = this.parked.get(sessionKey);
      current?.delete(entry);
      if (current?.size === 0) this.parked.delete(sessionKey);
    };
  }

  async wake(sessionKey: string): Promise<void> {
    const waiters = this.parked.get(sessionKey);
    if (waiters === undefined) return;
    this.parked.delete(sessionKey);
    for (const onWake of waiters) onWake();
  }

  /** Parked waiters of one session (for tests and health). */
  count(sessionKey: string): number {
    return this.parked.get(sessionKey)?.size ?? 0;
  }
}

export interface RedisSessionWaitersOptions {
  /** Moves the named delayed jobs back to the wait; a job that is no longer delayed is skipped. */
  promote(jobIds: readonly string[]): Promise<number>;
  /** A waiters set outlives its last registration by this much, so sets of crashed processes do not pile up. */
  setTtlMs?: number;
}

/**
 * Parked BullMQ runs across processes: a Redis set of job ids per session. A parked job is a delayed job with a long
 * safety delay; `wake` promotes every job in the set, whichever process releases the lock.
 */
export class RedisSessionWaiters implements SessionWakeup {
  private readonly setTtlMs: number;

  constructor(
    private readonly redis: Redis,
    private readonly options: RedisSessionWaitersOptions,
  ) {
    this.setTtlMs = options.setTtlMs ?? 10 * PARKED_SAFETY_DELAY_MS;
  }

  async register(sessionKey: string, jobId: string): Promise<void> {
    const key = SESSION_WAITERS_PREFIX + sessionKey;
    await this.redis.multi().sadd(key, jobId).pexpire(key, this.setTtlMs).exec();
  }

  /** Whether someone holds the session's lock right now. */
  async sessionLocked(sessionKey: string): Promise<boolean> {
    return (await this.redis.exists(SESSION_LOCK_PREFIX + sessionKey)) === 1;
  }

  /** How long the session's lock lives unless renewed; undefined when nobody holds it. */
  async lockExpiresInMs(sessionKey: string): Promise<number | undefined> {
    const ttl = await this.redis.pttl(SESSION_LOCK_PREFIX + sessionKey);
    return ttl >= 0 ? ttl : ttl === -1 ? Number.POSITIVE_INFINITY : undefined;
  }

  async wake(sessionKey: string): Promise<void> {
    const key = SESSION_WAITERS_PREFIX + sessionKey;
    // Read and clear in one transaction: a job registering meanwhile lands in a fresh set for the next release.
    const replies = await this.redis.multi().smembers(key).del(key).exec();
    const members: unknown = replies?.[0]?.[1];
    if (!Array.isArray(members) || members.length === 0) return;
    await this.options.promote(members.filter((id): id is string => typeof id === "string"));
  }
}

/** The same lock, except that releasing a lease wakes the runs parked behind the session. */
export function wakingSessionLock(lock: SessionLock, wakeup: SessionWakeup, logger: Logger): SessionLock {
  return {
    async tryAcquire(sessionKey: string, ttlMs: number): Promise<SessionLease | undefined> {
      const lease = await lock.tryAcquire(sessionKey, ttlMs);
      if (lease === undefined) return undefined;
      return {
        key: lease.key,
        renew: () => lease.renew(),
        release: async () => {
          await lease.release();
          // A failed wake only costs the parked runs their safety delay.
          await wakeup.wake(sessionKey).catch((error: unknown) => logger.warn("could not wake runs waiting for a session", { sessionKey, error }));
        },
      };
    },
  };
}
