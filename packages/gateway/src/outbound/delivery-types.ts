/** A reply or notice waiting to go out, as the delivery service needs it from the store. */
export interface DeliveryRecordLike {
  id: number;
  platform: string;
  chatId: string;
  threadId?: string;
  replyToMessageId?: string;
  text: string;
  /** "reply": the agent's answer (its loss is announced in the chat); "notice": gateway messages. */
  kind: "reply" | "notice";
  /** Failures recorded so far; `recordFailure` is expected to add one. */
  attempts: number;
}

export interface DeliveryStoreLike {
  /** Pending deliveries, oldest first. */
  pending(limit?: number): Promise<DeliveryRecordLike[]>;
  markSent(id: number): Promise<void>;
  /** `final`: give up (status "failed"); otherwise the delivery stays pending for a later flush. */
  recordFailure(id: number, error: string, final: boolean): Promise<void>;
}

export interface FlushSummary {
  /** Deliveries completely sent during this flush. */
  sent: number;
  /** Deliveries given up during this flush. */
  failed: number;
}

export type DeliveryOutcome = "sent" | "failed";
