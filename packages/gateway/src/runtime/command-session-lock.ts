import type { Logger } from "@hermes/agent";
import { guardLease } from "../core/session-lease-guard.js";
import { timerScheduler, type Scheduler } from "../queue/scheduler.js";
import type { InMemorySessionWaiters } from "../queue/session-waiters.js";
import type { SessionLease, SessionLock } from "../queue/types.js";

/** What a command run under the session lock got: its result, or "a run is still writing this conversation". */
export type SessionLockedResult<T> = { ok: true; value: T } | { ok: false; reason: "busy" };

export type WithSessionLock = <T>(sessionKey: string, work: () => Promise<T>) => Promise<SessionLockedResult<T>>;

export interface CommandSessionLockOptions {
  /** The lock the runs take (its releases wake `waiters`). */
  lock: SessionLock;
  /** Woken whenever the session's lock is released (or a run of it settled). */
  waiters: InMemorySessionWaiters;
  /** How long a command waits for a run to let go of the session before it answers "busy" (default 5 s). */
  waitMs?: number;
  /** Lease length, renewed while the command works (default 15 s, as for runs). */
  leaseMs?: number;
  logger: Logger;
  scheduler?: Scheduler;
}

/**
 * Gateway-side commands that change a conversation (/undo, /retry, /compress) take the same session lock as the
 * runs, so they never cut into a turn a run is writing. A busy session is waited for briefly, woken on release.
 */
export function createWithSessionLock(options: CommandSessionLockOptions): WithSessionLock {
  const waitMs = options.waitMs ?? 5_000;
  const leaseMs = options.leaseMs ?? 15_000;
  const scheduler = options.scheduler ?? timerScheduler;

  return async <T>(sessionKey: string, work: () => Promise<T>): Promise<SessionLockedResult<T>> => {
    let cancelDeadline = (): void => undefined;
    const waitOver = new Promise<false>((resolve) => {
      cancelDeadline = scheduler.after(waitMs, () => resolve(false));
    });
    try {
      for (;;) {
        // Registered before trying, so a release between a failed try and the wait still wakes it.
        let withdraw = (): void => undefined;
        const released = new Promise<true>((resolve) => {
          withdraw = options.waiters.park(sessionKey, () => resolve(true));
        });
        let lease: SessionLease | undefined;
        try {
          lease = await options.lock.tryAcquire(sessionKey, leaseMs);
        } catch (error) {
          withdraw();
          throw error;
        }
        if (lease) {
          withdraw();
          cancelDeadline();
          const guard = guardLease(lease, { leaseMs, sessionKey, logger: options.logger });
          try {
            return { ok: true, value: await work() };
          } finally {
            guard.stop();
            await lease.release();
          }
        }
        const woken = await Promise.race([released, waitOver]);
        withdraw();
        if (!woken) return { ok: false, reason: "busy" };
      }
    } finally {
      cancelDeadline();
    }
  };
}
