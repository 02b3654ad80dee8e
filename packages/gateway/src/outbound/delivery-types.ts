import type { DeliveryRecord, InboundRecord } from "@hermes/store";

/**
 * A reply or notice waiting to go out, as the delivery service needs it from the store. `kind: "reply"` is the agent's
 * answer (its loss is announced in the chat); `attempts` counts recorded failures (`recordFailure` adds one).
 */
export type DeliveryRecordLike = Pick<DeliveryRecord, "id" | "inboundId" | "platform" | "chatId" | "threadId" | "replyToMessageId" | "text" | "kind" | "attempts">;

export interface DeliveryStoreLike {
  /** Pending deliveries, oldest first. */
  pending(limit?: number): Promise<DeliveryRecordLike[]>;
  markSent(id: number): Promise<void>;
  /** `final`: give up (status "failed"); otherwise the delivery stays pending for a later flush. */
  recordFailure(id: number, error: string, final: boolean): Promise<void>;
}

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
