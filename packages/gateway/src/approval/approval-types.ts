import type { ApprovalDecision, ApprovalRecord, ApprovalRepository, ApprovalStatus, NewApproval } from "@hermes/store";

/**
 * The approvals as the gateway and the run processor use them: the store's repository (one row per tool call waiting
 * for the person who asked, decided once by compare-and-set, or granted for the whole conversation).
 */
export type ApprovalsPort = ApprovalRepository;
export type ApprovalRequest = ApprovalRecord;
export type NewApprovalRequest = NewApproval;
export type { ApprovalDecision, ApprovalStatus };
