import { APPROVAL_LOCKOUT_MS, MAX_FAILED_APPROVALS } from "./pairing-rules.js";
import type { PairingStoreLike } from "./pairing-store.js";

type FailureStore = Pick<PairingStoreLike, "recordFailure" | "failuresSince" | "clearFailures">;

export type LockoutState = { locked: false } | { locked: true; retryAfterMs: number };

/*
 * The store keeps only timestamps of failures, and every `hermes pairing approve` is a separate process, so the lock-out
 * must be readable from those timestamps alone. When a platform reaches MAX_FAILED_APPROVALS failures within the hour,
 * its failures are replaced by MAX_FAILED_APPROVALS failures stamped "now": the platform then counts as locked exactly
 * while those stamps are less than an hour old, and starts from zero once they age out.
 */

export async function approvalLockout(store: FailureStore, platform: string, now: number): Promise<LockoutState> {
  const since = windowStart(now);
  if ((await store.failuresSince(platform, since)) < MAX_FAILED_APPROVALS) return { locked: false };
  const lockedAt = await latestTimeWithFullCount(store, platform, since, now);
  return { locked: true, retryAfterMs: Math.max(1, lockedAt + APPROVAL_LOCKOUT_MS - now) };
}

/** Records a failed approval and says whether it locked the platform. */
export async function recordFailedApproval(store: FailureStore, platform: string, now: number): Promise<LockoutState> {
  await store.recordFailure(platform, now);
  const recent = await store.failuresSince(platform, windowStart(now));
  if (recent < MAX_FAILED_APPROVALS) return { locked: false };
  await store.clearFailures(platform);
  for (let stamp = 0; stamp < MAX_FAILED_APPROVALS; stamp++) await store.recordFailure(platform, now);
  return { locked: true, retryAfterMs: APPROVAL_LOCKOUT_MS };
}

/** A success proves the operator has the right codes; isolated typos must not add up to a lock-out later. */
export async function forgetFailedApprovals(store: FailureStore, platform: string): Promise<void> {
  await store.clearFailures(platform);
}

/** Failures that still count: those less than an hour old. */
function windowStart(now: number): number {
  return now - APPROVAL_LOCKOUT_MS + 1;
}

// The lock's start is the latest `since` that still sees a full count. Counts only shrink as `since` grows, so a
// binary search over the window finds it in about 22 cheap queries, and only while a platform is locked.
async function latestTimeWithFullCount(store: FailureStore, platform: string, low: number, now: number): Promise<number> {
  let full = low;
  let short = now + 1;
  while (short - full > 1) {
    const middle = Math.floor((full + short) / 2);
    if ((await store.failuresSince(platform, middle)) >= MAX_FAILED_APPROVALS) full = middle;
    else short = middle;
  }
  return full;
}
