import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import { errorCode } from "../builtin-tools/fs-errors.js";
import { silentLogger, type Logger } from "../observability/logger.js";

export interface FileLockOptions {
  /** A lock file older than this is left over by a crashed writer and may be broken (default 10 s). */
  staleMs?: number;
  /** Mean pause between attempts; each pause is jittered between half and one and a half of it (default 20 ms). */
  retryDelayMs?: number;
  /** Give up after this long (default 15 s, so a stale lock is always outlived). */
  timeoutMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  logger?: Logger;
}

export type LockedOutcome<T> = { ok: true; value: T } | { ok: false; error: string };

const DEFAULTS = { staleMs: 10_000, retryDelayMs: 20, timeoutMs: 15_000 };

/**
 * Runs `critical` while holding `lockPath`, an exclusive lock file created with O_EXCL ("wx"), so writers in
 * other processes (a second gateway, the CLI) take turns. Failing to get the lock in time is a value; errors
 * thrown by `critical` or by the file system propagate after the lock is released.
 */
export async function withFileLock<T>(
  lockPath: string,
  critical: () => Promise<T>,
  options: FileLockOptions = {},
): Promise<LockedOutcome<T>> {
  const token = randomBytes(8).toString("hex");
  const acquired = await acquire(lockPath, token, options);
  if (!acquired) {
    const waited = options.timeoutMs ?? DEFAULTS.timeoutMs;
    return { ok: false, error: `another writer held ${lockPath} for more than ${waited} ms` };
  }
  try {
    return { ok: true, value: await critical() };
  } finally {
    await release(lockPath, token);
  }
}

async function acquire(lockPath: string, token: string, options: FileLockOptions): Promise<boolean> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const random = options.random ?? Math.random;
  const deadline = now() + (options.timeoutMs ?? DEFAULTS.timeoutMs);
  const body = JSON.stringify({ pid: process.pid, token });
  for (;;) {
    try {
      await fs.writeFile(lockPath, body, { flag: "wx" });
      return true;
    } catch (error) {
      if (errorCode(error) !== "EEXIST") throw error;
    }
    if (await breakIfStale(lockPath, now(), options)) continue;
    if (now() >= deadline) return false;
    await sleep((options.retryDelayMs ?? DEFAULTS.retryDelayMs) * (0.5 + random()));
  }
}

/**
 * Moves a stale lock aside rather than deleting it, so two writers that both judged it stale cannot delete
 * each other's fresh lock: only one rename wins, and a winner that finds it took a fresh lock puts it back.
 */
async function breakIfStale(lockPath: string, now: number, options: FileLockOptions): Promise<boolean> {
  let judged: string;
  try {
    const stat = await fs.stat(lockPath);
    if (now - stat.mtimeMs < (options.staleMs ?? DEFAULTS.staleMs)) return false;
    judged = await fs.readFile(lockPath, "utf8");
  } catch (error) {
    if (errorCode(error) === "ENOENT") return true;
    throw error;
  }
  const aside = `${lockPath}.stale-${randomBytes(6).toString("hex")}`;
  try {
    await fs.rename(lockPath, aside);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return true;
    throw error;
  }
  const taken = await fs.readFile(aside, "utf8");
  if (taken !== judged) {
    await fs.link(aside, lockPath).catch(() => undefined);
  } else {
    (options.logger ?? silentLogger).warn("broke a stale memory lock left by a crashed writer", { lockPath, holder: judged });
  }
  await fs.rm(aside, { force: true });
  return true;
}

async function release(lockPath: string, token: string): Promise<void> {
  try {
    const holder = await fs.readFile(lockPath, "utf8");
    // After a stall longer than staleMs another writer may own the file now; it is theirs to remove.
    if (holder.includes(token)) await fs.rm(lockPath, { force: true });
  } catch (error) {
    if (errorCode(error) !== "ENOENT") throw error;
  }
}
