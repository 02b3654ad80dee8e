/**
 * The storage the pairing flow needs. `@hermes/store` implements exactly these methods; the gateway codes against this
 * shape so it never depends on the store package's internals.
 */
export interface NewPairingRequest {
  platform: string;
  userId: string;
  userName?: string;
  /** The DM to notify once the request is approved. */
  chatId: string;
  /** scrypt hash (hex) of the code with `salt`; the code itself is never stored. */
  codeHash: string;
  salt: string;
  createdAt: number;
  expiresAt: number;
}

export interface PairingRequestRecord extends NewPairingRequest {
  id: number;
}

export interface ApprovedUserRecord {
  platform: string;
  userId: string;
  userName?: string;
  approvedAt: number;
}

export interface PairingStoreLike {
  createRequest(request: NewPairingRequest): Promise<PairingRequestRecord>;
  /** Requests that have not expired at `now`, oldest first. */
  pendingRequests(platform: string, now: number): Promise<PairingRequestRecord[]>;
  latestRequestForUser(platform: string, userId: string): Promise<PairingRequestRecord | undefined>;
  deleteRequest(id: number): Promise<void>;
  purgeExpired(now: number): Promise<number>;
  approve(user: { platform: string; userId: string; userName?: string }, now: number): Promise<void>;
  isApproved(platform: string, userId: string): Promise<boolean>;
  revoke(platform: string, userId: string): Promise<boolean>;
  listApproved(platform?: string): Promise<ApprovedUserRecord[]>;
  recordFailure(platform: string, now: number): Promise<void>;
  /** Failed approvals recorded at or after `since`. */
  failuresSince(platform: string, since: number): Promise<number>;
  clearFailures(platform: string): Promise<void>;
}
