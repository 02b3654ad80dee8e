/**
 * The approvals as the gateway and the run processor use them (the store's `approvals` repository): one row per
 * tool call waiting for the person who asked, decided once (compare-and-set), or granted for the whole conversation.
 */
export type ApprovalStatus = "pending" | "approved" | "denied" | "expired";

export interface NewApprovalRequest {
  id: string;
  inboundId: number;
  sessionKey: string;
  sessionId: string;
  platform: string;
  chatId: string;
  threadId?: string;
  requesterId: string;
  tool: string;
  summary: string;
  createdAt: number;
  expiresAt: number;
}

export interface ApprovalRequest extends NewApprovalRequest {
  status: ApprovalStatus;
  scope?: "once" | "session";
  decidedBy?: string;
  decidedAt?: number;
}

export interface ApprovalDecision {
  status: Exclude<ApprovalStatus, "pending">;
  scope?: "once" | "session";
  decidedBy?: string;
  decidedAt: number;
}

export interface ApprovalsPort {
  create(input: NewApprovalRequest): Promise<void>;
  get(id: string): Promise<ApprovalRequest | undefined>;
  /** True only for the decision that found it still pending. */
  decide(id: string, decision: ApprovalDecision): Promise<boolean>;
  latestPending(sessionKey: string, now: number): Promise<ApprovalRequest | undefined>;
  grantedForSession(sessionId: string, tool: string): Promise<boolean>;
}
