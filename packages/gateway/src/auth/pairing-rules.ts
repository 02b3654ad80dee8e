/** How long an issued code stays valid. */
export const PAIRING_CODE_TTL_MS = 60 * 60_000;

/** A user who writes again sooner gets a reminder instead of a new code. */
export const PAIRING_REQUEST_INTERVAL_MS = 10 * 60_000;

/** Pending requests per platform; beyond this, strangers are told to try later so nobody can flood the operator. */
export const MAX_PENDING_PER_PLATFORM = 3;

/** Failed approvals within `APPROVAL_LOCKOUT_MS` that lock approvals for a platform. */
export const MAX_FAILED_APPROVALS = 5;

/** How long approvals for a platform stay locked after too many failed attempts. */
export const APPROVAL_LOCKOUT_MS = 60 * 60_000;
