import type { Message } from "@mariozechner/pi-ai";

/** Where a conversation happens. `chatType` follows the session-key contract of DESIGN.md. */
export type ChatType = "dm" | "group" | "channel";

export type SessionStatus = "active" | "ended";

export interface SessionRecord {
  /** Unique id of this conversation (a UUID). A key has at most one active session at a time. */
  id: string;
  /** Routing key, e.g. `agent:main:telegram:dm:12345`. */
  key: string;
  platform: string;
  chatId: string;
  chatType: ChatType;
  threadId?: string;
  userId?: string;
  title?: string;
  status: SessionStatus;
  /** Session this one continues (compression lineage: the parent keeps the original messages). */
  parentId?: string;
  /** Per-session model override set with /model. */
  model?: string;
  createdAt: number;
  updatedAt: number;
}

export interface NewSession {
  key: string;
  platform: string;
  chatId: string;
  chatType: ChatType;
  threadId?: string;
  userId?: string;
  title?: string;
  parentId?: string;
}

export interface StoredMessage {
  sessionId: string;
  /** 0-based position in the session transcript. */
  seq: number;
  message: Message;
  tokens: number;
  createdAt: number;
}

/**
 * A processed or pending inbound message; (platform, messageId) is what deduplicates. "received" is persisted but not
 * yet routed (a gateway that crashed there re-processes it at start-up); "ignored" covers commands, blocked and
 * unaddressed messages that need no agent run.
 */
export type InboundStatus = "received" | "queued" | "running" | "answered" | "failed" | "cancelled" | "ignored";

/** A message handed to the queue and not finished: a run may take it up or is working on it. */
export const OPEN_INBOUND_STATUSES: InboundStatus[] = ["queued", "running"];
/** Not finished at all, including a message recorded but not yet routed (a crash mid-intake). */
export const UNFINISHED_INBOUND_STATUSES: InboundStatus[] = ["received", ...OPEN_INBOUND_STATUSES];

export interface InboundRecord {
  /** Store-assigned id, stable across processes (used for job ids). */
  id: number;
  platform: string;
  messageId: string;
  sessionKey?: string;
  status: InboundStatus;
  /** The normalized inbound message as JSON (the gateway owns its shape). */
  payload: string;
  receivedAt: number;
  updatedAt: number;
  /** The W3C trace context of the span that received it, as stored (the reader validates it before use). */
  traceContext?: InboundTraceContext;
}

/** W3C `traceparent` and `tracestate` headers; when tracing is off there is none. */
export interface InboundTraceContext {
  traceparent: string;
  tracestate?: string;
}

export type DeliveryStatus = "pending" | "sent" | "failed";

/** How a delivery that is no longer pending ended: sent, or given up (with the last error). */
export interface DeliveryOutcome {
  status: "sent" | "failed";
  lastError?: string;
}

/** A button under a delivered message; pressing it sends `value` (at most 64 bytes) as the presser's message. */
export interface DeliveryButton {
  label: string;
  value: string;
  style?: "primary" | "danger";
}

export interface DeliveryRecord {
  id: number;
  /** Inbound message this answers (null for notices such as pairing codes). */
  inboundId?: number;
  sessionKey?: string;
  platform: string;
  chatId: string;
  threadId?: string;
  replyToMessageId?: string;
  text: string;
  /** "reply" (agent answer), "notice" (command output, acknowledgements, errors). */
  kind: "reply" | "notice";
  /** One row of buttons under the message; absent when it has none. */
  buttons?: DeliveryButton[];
  status: DeliveryStatus;
  attempts: number;
  lastError?: string;
  createdAt: number;
  updatedAt: number;
  /** Parts of a multi-part reply already sent; a new sender resumes after them. */
  partsSent: number;
  /** Not sent before this time (a platform's retry_after, a retry's backoff); unset: due now. */
  nextAttemptAt?: number;
  /** The process sending it, while `claimExpiresAt` has not passed. */
  claimOwner?: string;
  claimExpiresAt?: number;
}

export type NewDelivery = Omit<
  DeliveryRecord,
  "id" | "status" | "attempts" | "lastError" | "createdAt" | "updatedAt" | "partsSent" | "nextAttemptAt" | "claimOwner" | "claimExpiresAt"
>;

export type ApprovalStatus = "pending" | "approved" | "denied" | "expired";

/** "once": this call only; "session": every later call of the tool in the same conversation (session id). */
export type ApprovalScope = "once" | "session";

/** A run asking a person before it uses a dangerous tool. */
export interface NewApproval {
  /** 8 to 12 characters of [a-z0-9]: short enough for a button's value and a typed `/approve <id>`. */
  id: string;
  /** The run that asks. */
  inboundId: number;
  sessionKey: string;
  sessionId: string;
  platform: string;
  chatId: string;
  threadId?: string;
  /** The only person who may decide. */
  requesterId: string;
  tool: string;
  /** What the call would do, as shown to the person asked. */
  summary: string;
  createdAt: number;
  expiresAt: number;
}

export type ApprovalRecord = NewApproval & {
  status: ApprovalStatus;
  scope?: ApprovalScope;
  decidedBy?: string;
  decidedAt?: number;
};

export interface ApprovalDecision {
  status: Exclude<ApprovalStatus, "pending">;
  scope?: ApprovalScope;
  decidedBy?: string;
  decidedAt: number;
}

export type CronJobKind = "cron" | "every" | "once";

/**
 * "ran": a run was started for the slot; "skipped": the job's previous run was still going (or its creator is no longer
 * allowed); "missed": past due while down; "paused": its last replies could not be delivered for good (its chat is
 * gone), so it has no next run.
 */
export type CronRunStatus = "ran" | "skipped" | "missed" | "paused" | "over_budget";

/** A prompt a chat scheduled (the `cronjob` tool, `/cron create`). */
export interface NewCronJob {
  /** 8 characters of [a-z0-9]: short enough to type back in `/cron remove <id>`. */
  id: string;
  platform: string;
  chatId: string;
  chatType: ChatType;
  threadId?: string;
  /** Whose authorization the runs carry. */
  creatorId: string;
  /** The conversation it was created in. */
  sessionKey: string;
  /** As the person gave it (a cron expression, `every 2h`, `in 30m`, an ISO 8601 time). */
  schedule: string;
  kind: CronJobKind;
  prompt: string;
  /** The next slot (epoch ms); null when nothing is left to run. */
  nextRunAt: number | null;
  createdAt: number;
}

export type CronJobRecord = NewCronJob & {
  lastRunAt?: number;
  lastStatus?: CronRunStatus;
  /** Slots that started a run. */
  runs: number;
};

/** What a scheduler sets when it takes a slot (CronJobRepository.advance). */
export interface CronJobAdvance {
  /** The slot after this one; null when the job has no more. */
  nextRunAt: number | null;
  lastRunAt: number;
  lastStatus: CronRunStatus;
}

/** One sub-agent a run's `delegate_task` started (the lineage of delegation): the agent's record, stored as it is. */
export type { SubagentRun as SubagentRunRecord, SubagentRunStatus } from "@hermes/agent";

export interface UsageRecord {
  sessionId: string;
  runs: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number;
}

export interface PairingRequestRecord {
  id: number;
  platform: string;
  userId: string;
  userName?: string;
  chatId: string;
  /** scrypt hash (hex) of the code with `salt`; the code itself is never stored. */
  codeHash: string;
  salt: string;
  createdAt: number;
  expiresAt: number;
}

export interface ApprovedUserRecord {
  platform: string;
  userId: string;
  userName?: string;
  approvedAt: number;
}

export interface SearchHit {
  sessionId: string;
  sessionKey: string;
  title?: string;
  seq: number;
  role: string;
  /** Excerpt with the matched terms marked [like this]. */
  snippet: string;
  createdAt: number;
}
