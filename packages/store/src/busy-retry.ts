/**
 * Waiting for another connection's write lock without blocking the event loop.
 *
 * better-sqlite3 is synchronous: with a long `busy_timeout`, a statement that finds the write lock taken sleeps the
 * whole thread until the lock frees up, so for up to seconds no timer, socket or heartbeat of this process runs
 * (Slack's 3-second acknowledgement, Discord's heartbeats, the other chats' replies). So the connection's own wait is
 * kept to a few milliseconds, and a repository operation that still finds the database busy is tried again after an
 * asynchronous pause that grows with jitter, during which everything else in the process goes on.
 *
 * Trying an operation again is only safe because nothing of it was written when it failed: every repository
 * operation is one statement or one transaction (`exec.write`), and SQLite reports SQLITE_BUSY before the statement or
 * the transaction's BEGIN IMMEDIATE has changed anything. An operation made of several separate writes would need a
 * transaction of its own before it may be wrapped.
 */

export interface BusyRetryPolicy {
  /** How long an operation keeps trying in all before its SQLITE_BUSY error is thrown (0: no retry). */
  maxWaitMs: number;
  /** The first pause; each further pause doubles, up to `maxDelayMs`. */
  firstDelayMs: number;
  maxDelayMs: number;
  /** In [0, 1), for jitter, so processes that found the lock taken together do not all come back together. */
  random: () => number;
  now: () => number;
}

/**
 * PostgreSQL's errors that mean "try the transaction again", with nothing of it written: serialization_failure,
 * deadlock_detected (the server rolled back one of the two), lock_not_available.
 */
const POSTGRES_RETRY_CODES: ReadonlySet<string> = new Set(["40001", "40P01", "55P03"]);

/**
 * A named prepared statement (pg-runner.ts) whose result columns changed since this connection prepared it: a newer
 * version's migration added a column to a table it reads with `SELECT *` while this process runs. The server fails
 * that one execution (feature_not_supported, a code too broad to retry on its own) and plans the statement afresh for
 * the next, so trying the operation again succeeds.
 */
const POSTGRES_REPLANNED = /^cached plan must not change result type/;

/**
 * A lock held elsewhere: better-sqlite3's SqliteError code (also its extended forms, e.g. SQLITE_BUSY_SNAPSHOT), or
 * one of PostgreSQL's codes above; or a PostgreSQL statement planned afresh after a schema change.
 */
export function isBusyError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (code === "0A000") return POSTGRES_REPLANNED.test(error.message);
  return typeof code === "string" && (code.startsWith("SQLITE_BUSY") || POSTGRES_RETRY_CODES.has(code));
}

/** Runs `operation`, trying it again after pauses while it fails with SQLITE_BUSY, for up to `maxWaitMs`. */
export async function retryWhileBusy<T>(operation: () => Promise<T>, policy: BusyRetryPolicy): Promise<T> {
  return retryFrom(policy.now(), policy.firstDelayMs, operation, policy);
}

async function retryFrom<T>(started: number, firstDelayMs: number, operation: () => Promise<T>, policy: BusyRetryPolicy): Promise<T> {
  const deadline = started + policy.maxWaitMs;
  let delay = firstDelayMs;
  for (;;) {
    try {
      return await operation();
    } catch (error) {
      const left = deadline - policy.now();
      if (!isBusyError(error) || left <= 0) throw error;
      // Half the delay fixed, half random: spread out, but never a busy loop.
      const pause = Math.min(left, delay / 2 + (policy.random() * delay) / 2);
      await new Promise((resolve) => setTimeout(resolve, pause));
      delay = Math.min(policy.maxDelayMs, delay * 2);
    }
  }
}

/** The same repository, each of its operations tried again while the database is busy (see the top of this file). */
export function withBusyRetry<T extends object>(repository: T, policy: BusyRetryPolicy): T {
  const wrapped: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(repository as Record<string, unknown>)) {
    wrapped[name] = typeof member === "function" ? retryingOperation(member as Operation, repository, policy) : member;
  }
  return wrapped as T;
}

/** One operation (a function such as `completeRun`) tried again while the database is busy. */
export function retryingFunction<F extends Operation>(operation: F, policy: BusyRetryPolicy): F {
  return retryingOperation(operation, undefined, policy) as unknown as F;
}

type Operation = (...args: never[]) => unknown;

/**
 * The first attempt runs without the retry loop's async frames (every store call of a message passes here, and
 * nearly none finds the database busy); only a busy failure enters the loop, with the deadline counted from the call.
 */
function retryingOperation(operation: Operation, self: unknown, policy: BusyRetryPolicy): (...args: unknown[]) => Promise<unknown> {
  const call = operation as (...args: unknown[]) => unknown;
  return (...args) => {
    const started = policy.now();
    let first: Promise<unknown>;
    try {
      first = Promise.resolve(call.apply(self, args));
    } catch (error) {
      first = Promise.reject(error);
    }
    return first.catch((error: unknown) => {
      const left = started + policy.maxWaitMs - policy.now();
      if (!isBusyError(error) || left <= 0) throw error;
      return pauseThenRetry(left, started, async () => call.apply(self, args), policy);
    });
  };
}

/** After a first attempt failed busy: the first pause, then the loop of retryWhileBusy, within the call's deadline. */
async function pauseThenRetry(left: number, started: number, attempt: () => Promise<unknown>, policy: BusyRetryPolicy): Promise<unknown> {
  const delay = policy.firstDelayMs;
  await new Promise((resolve) => setTimeout(resolve, Math.min(left, delay / 2 + (policy.random() * delay) / 2)));
  return retryFrom(started, Math.min(policy.maxDelayMs, delay * 2), attempt, policy);
}
