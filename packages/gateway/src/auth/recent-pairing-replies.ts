import { PAIRING_REQUEST_INTERVAL_MS } from "./pairing-rules.js";

/** Strangers remembered at most; beyond it the oldest are forgotten, so a crowd of accounts cannot grow memory. */
const MAX_REMEMBERED = 10_000;

/**
 * When each stranger was last answered, for the one-reply-per-interval rule. The stored request says it too, but not
 * for a stranger whose request was pushed out by newer ones: without this, they would get a code on every message.
 */
export class RecentPairingReplies {
  private readonly repliedAt = new Map<string, number>();

  repliedRecently(platform: string, userId: string, now: number): boolean {
    this.forgetOlderThan(now - PAIRING_REQUEST_INTERVAL_MS);
    const at = this.repliedAt.get(key(platform, userId));
    return at !== undefined && now - at < PAIRING_REQUEST_INTERVAL_MS;
  }

  record(platform: string, userId: string, now: number): void {
    const id = key(platform, userId);
    // Re-inserted so the map's order stays oldest first.
    this.repliedAt.delete(id);
    this.repliedAt.set(id, now);
    for (const oldest of this.repliedAt.keys()) {
      if (this.repliedAt.size <= MAX_REMEMBERED) break;
      this.repliedAt.delete(oldest);
    }
  }

  private forgetOlderThan(cutoff: number): void {
    for (const [id, at] of this.repliedAt) {
      if (at > cutoff) break;
      this.repliedAt.delete(id);
    }
  }
}

function key(platform: string, userId: string): string {
  return `${platform}\u0000${userId}`;
}
