import type { ApprovedUserRecord, NewPairingRequest, PairingRequestRecord, PairingStoreLike } from "./pairing-store.js";

/**
 * A `PairingStoreLike` kept in memory, with the same ordering and expiry rules as the SQLite store. For tests and for
 * callers that need pairing without a database; everything is lost when the process ends.
 */
export class MemoryPairingStore implements PairingStoreLike {
  private readonly requests = new Map<number, PairingRequestRecord>();
  private readonly approved = new Map<string, ApprovedUserRecord>();
  private readonly failures: Array<{ platform: string; at: number }> = [];
  private nextId = 1;

  /** Every stored request, expired or not: lets tests inspect exactly what was persisted. */
  allRequests(): PairingRequestRecord[] {
    return [...this.requests.values()].map((request) => ({ ...request }));
  }

  async createRequest(request: NewPairingRequest): Promise<PairingRequestRecord> {
    const record = { ...request, id: this.nextId++ };
    this.requests.set(record.id, record);
    return { ...record };
  }

  async pendingRequests(platform: string, now: number): Promise<PairingRequestRecord[]> {
    return this.allRequests()
      .filter((request) => request.platform === platform && request.expiresAt > now)
      .sort((a, b) => a.createdAt - b.createdAt || a.id - b.id);
  }

  async latestRequestForUser(platform: string, userId: string): Promise<PairingRequestRecord | undefined> {
    const own = this.allRequests().filter((request) => request.platform === platform && request.userId === userId);
    return own.sort((a, b) => b.createdAt - a.createdAt || b.id - a.id)[0];
  }

  async deleteRequest(id: number): Promise<boolean> {
    return this.requests.delete(id);
  }

  async purgeExpired(now: number): Promise<number> {
    let purged = 0;
    for (const [id, request] of this.requests) {
      if (request.expiresAt > now) continue;
      this.requests.delete(id);
      purged++;
    }
    return purged;
  }

  async approve(user: { platform: string; userId: string; userName?: string }, now: number): Promise<void> {
    const record: ApprovedUserRecord = { platform: user.platform, userId: user.userId, approvedAt: now };
    if (user.userName !== undefined) record.userName = user.userName;
    this.approved.set(approvedKey(user.platform, user.userId), record);
  }

  async isApproved(platform: string, userId: string): Promise<boolean> {
    return this.approved.has(approvedKey(platform, userId));
  }

  async revoke(platform: string, userId: string): Promise<boolean> {
    return this.approved.delete(approvedKey(platform, userId));
  }

  async listApproved(platform?: string): Promise<ApprovedUserRecord[]> {
    return [...this.approved.values()]
      .filter((user) => platform === undefined || user.platform === platform)
      .sort((a, b) => a.approvedAt - b.approvedAt)
      .map((user) => ({ ...user }));
  }

  async recordFailure(platform: string, now: number): Promise<void> {
    this.failures.push({ platform, at: now });
  }

  async failuresSince(platform: string, since: number): Promise<number> {
    return this.failures.filter((failure) => failure.platform === platform && failure.at >= since).length;
  }

  async clearFailures(platform: string): Promise<void> {
    const kept = this.failures.filter((failure) => failure.platform !== platform);
    this.failures.splice(0, this.failures.length, ...kept);
  }
}

function approvedKey(platform: string, userId: string): string {
  return `${platform}\u0000${userId}`;
}
