import type { DeliveryRecord, DeliveryRepository, InboundRecord } from "@hermes/store";

/**
 * A reply or notice waiting to go out, as the delivery service needs it from the store. `kind: "reply"` is the agent's
 * answer (its loss is announced in the chat); `attempts` counts recorded failures (`recordFailure` adds one);
 * `partsSent` how many parts of it went out already (a new sender resumes after them).
 */
export type DeliveryRecordLike = Pick<
  DeliveryRecord,
  "id" | "inboundId" | "platform" | "chatId" | "threadId" | "replyToMessageId" | "text" | "kind" | "attempts" | "partsSent" | "createdAt"
>;

/**
 * The outbox as the delivery service uses it: rows are claimed (owner, lease) before they are sent, and every write
 * returns false when the claim was lost to another process.
 */
export type DeliveryStoreLike = Pick<
  DeliveryRepository,
  "claim" | "renewClaim" | "markPartSent" | "markSent" | "recordFailure" | "defer" | "releaseClaims" | "nextAttemptAt" | "countPendingByPlatform"
>;

/** Where the message a reply answers is read back, for the trace context saved with it. */
export interface InboundTraceStoreLike {
  get(id: number): Promise<Pick<InboundRecord, "traceContext"> | undefined>;
}

export interface FlushSummary {
  /** Deliveries completely sent during this flush. */
  sent: number;
  /** Deliveries given up during this flush. */
  failed: number;
}

export type DeliveryOutcome = "sent" | "failed";
