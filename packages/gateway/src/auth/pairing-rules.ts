/** How long an issued code stays valid. */
export const PAIRING_CODE_TTL_MS = 60 * 60_000;

/**
 * A stranger gets at most one pairing reply (a code) in this long; further messages within it get no answer, so
 * writing to the bot in a loop cannot make it write back in a loop. After it, a new code replaces the old one.
 */
export const PAIRING_REQUEST_INTERVAL_MS = 10 * 60_000;

/**
 * Live requests kept per platform. The bound exists because every `hermes pairing approve` checks the typed code
 * against each pending hash with scrypt (slow on purpose), and because `hermes pairing list` must stay readable and
 * the table small however many accounts write to the bot. When it is reached, the oldest request expires early to
 * make room: a crowd of strangers can push each other's codes out, but never stops the next person from getting one.
 */
export const MAX_PENDING_PER_PLATFORM = 50;

/** Failed approvals within `APPROVAL_LOCKOUT_MS` that lock approvals for a platform. */
export const MAX_FAILED_APPROVALS = 5;

/** How long approvals for a platform stay locked after too many failed attempts. */
export const APPROVAL_LOCKOUT_MS = 60 * 60_000;

/** What an approved user is sent, in the DM they asked from, so they know they can start. */
export const APPROVED_NOTICE = "You're approved — you can start chatting now.";
