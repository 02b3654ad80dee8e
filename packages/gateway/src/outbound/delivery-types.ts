import type { DeliveryRecord, DeliveryRepository, InboundRecord } from "@hermes/store";

/**
 * A reply or notice waiting to go out, as the delivery service needs it from the store. `kind: "reply"` is the agent's
 * answer (its loss is announced in the chat); `attempts` counts recorded failures (`recordFailure` adds one);
 * `partsSent` how many parts of it went out already (a new sender resumes after them); `buttons` go under its last part.
 */
export type DeliveryRecordLike = Pick<
  DeliveryRecord,
  "id" | "inboundId" | "platform" | "chatId" | "threadId" | "replyToMessageId" | "text" | "kind" | "buttons" | "attempts" | "partsSent" | "createdAt"
>;

/**
 * The messages a streamed reply already occupies on its platform: its final delivery edits them instead of sending the
 * answer again.
 */
export interface StreamedRepliesLike {
  /** Ends the stream this process shows for the inbound message and returns its message ids ([] when it showed none). */
  finish(inboundId: number): Promise<string[]>;
  /** The message ids recorded for it (store.streamParts.list), ordered by part: a restart, or another process streamed it. */
  stored(inboundId: number): Promise<string[]>;
  /** Forgets them once the reply is sent. */
  clear(inboundId: number): Promise<void>;
  /** A notice of the run is going out: the stream goes on below it, and the reply does not edit what is above. */
  cut(inboundId: number): Promise<void>;
}

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
