import type { AnyToolDefinition, ContextCompressor, HermesAgent, Logger, MemoryManager } from "@hermes/agent";
import type { Message } from "@mariozechner/pi-ai";
import type { Store } from "@hermes/store";
import type { createApprovalGate } from "../approval/approval-gate.js";
import type { StreamUpdate } from "../streaming/stream-update.js";
import type { InboundMessage } from "./inbound.js";
import type { HookPort } from "./ports.js";
import type { ConversationPeople } from "./run-personal-data.js";
import type { SessionScopeSettings } from "./session-key.js";

export interface SessionLease {
  renew(): Promise<boolean>;
  release(): Promise<void>;
}

export interface RunProcessorOptions {
  store: Store;
  lock: { tryAcquire(sessionKey: string, ttlMs: number): Promise<SessionLease | undefined> };
  /** The agent for a session: the configured one, or one for the session's /model override. */
  agentFor(model: string | undefined): Promise<HermesAgent>;
  /** The conversation's context compressor (kept per session key for its anti-thrash state). */
  compressorFor?(sessionKey: string): ContextCompressor;
  /** The memory of a message's scope (HERMES_MEMORY_SCOPE) and the memory tools its run may use. */
  memoryFor?(message: InboundMessage, sessionId: string): Promise<{ manager: MemoryManager; tools: readonly AnyToolDefinition[] }>;
  /** The conversation's background reviewer (reflection) for the run's memory scope, when enabled. */
  reviewerFor?(
    sessionKey: string,
    memory?: MemoryManager,
  ): { onTurnStart(turn: number): void; afterRun(run: { messages: Message[]; steps: number; sessionId?: string; personalData?: ConversationPeople }): void } | undefined;
  /**
   * Called before each run, before its hooks and agent (with HERMES_DATABASE_URL: brings the skills, hook state and
   * the session's files from the database into this process's HERMES_HOME). Failures are its own to report.
   */
  beforeRun?(sessionKey: string, sessionId: string): Promise<void>;
  /** Called before the first run of a new session (e.g. to refresh the memory snapshot). */
  onSessionStart?(sessionId: string): Promise<void>;
  hooks: HookPort;
  /** HERMES_APPROVAL: asks the person who wrote the message before each call of an approval tool. */
  approvalGate?: ReturnType<typeof createApprovalGate>;
  /**
   * HERMES_STREAMING=edit: takes the reply as it is written (the gateway's presenter in its own process, the Redis
   * channel from a worker). The final reply still goes through the outbox and replaces what was shown.
   */
  streamTo?(update: StreamUpdate): void;
  /** HERMES_DAILY_BUDGET_USD: once the sender's cost today reaches it, their messages are answered without the model. */
  dailyBudgetUsd?: number;
  /** Called for each message answered without the model because its sender's daily budget was reached, e.g. to count it. */
  onBudgetRefused?(message: InboundMessage): void;
  sessionScope: SessionScopeSettings;
  /** The agent's workspace, where attachments are saved: their images and text go to the model (attachment-content.ts). */
  workspace?: string;
  /**
   * Called when a run has answered its session's queued messages, with those whose replies are now in the outbox,
   * before it lets go of the session and its job: a worker tells the gateway to deliver them now rather than after the
   * job's completion has gone round through the queue. Once per run, not per message: delivering while the run is
   * still writing its next answers would contend with it for the database.
   */
  onRepliesStored?(inboundIds: readonly number[]): void;
  /**
   * Called as soon as one message's replies are committed, before the run's hooks, its span's end and the session's
   * next messages: for a queue in the gateway's own process, whose delivery shares the run's database connection and
   * so contends with nothing when it sends at once.
   */
  onReplyStored?(inboundId: number): void;
  logger: Logger;
  leaseMs?: number;
  now?: () => number;
}
