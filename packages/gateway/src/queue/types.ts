/** BullMQ queue that carries agent runs from the gateway to the workers. */
export const DEFAULT_RUN_QUEUE_NAME = "hermes-runs";

import type { TraceCarrier } from "../tracing/trace-carrier.js";

/**
 * One queued agent run: answer the persisted inbound message `inboundId` in session `sessionKey`. The W3C trace
 * context of the message's intake travels with it, so the run's spans join the gateway's trace in any process.
 */
export interface AgentRunJob extends TraceCarrier {
  inboundId: number;
  sessionKey: string;
}

/** What a processor reports: finished, or "the session is busy elsewhere, run me again soon after other work". */
export type RunOutcome = "done" | "retry_later";

/** How a run ended for good, as seen by whoever enqueued it. */
export type SettledOutcome = "done" | "failed";

export interface RunContext {
  /** Aborted by `stop(sessionKey)` or by shutdown; `signal.reason` is a {@link RunAbortedError} saying which. */
  signal: AbortSignal;
}

/** The processor runs one job. It returns "retry_later" when the session is busy elsewhere (the job must then run again soon, after other work). */
export type RunProcessor = (job: AgentRunJob, context: RunContext) => Promise<RunOutcome>;

export type SettledListener = (job: AgentRunJob, outcome: SettledOutcome) => void;

export type RepliesStoredListener = (inboundId: number) => void;

/** The custom event a worker adds to the queue's event stream once a run's replies are in the outbox. */
export const REPLIES_STORED_EVENT = "hermes:replies-stored";

export interface QueueCloseOptions {
  drainMs?: number;
}

export interface AgentRunQueue {
  /** Idempotent per inboundId: the job id is derived from it (`run-<inboundId>`), so a re-delivered message is not enqueued twice. */
  enqueue(job: AgentRunJob): Promise<{ enqueued: boolean }>;
  /** Interrupts every running job of this session, in whatever process runs it. */
  stop(sessionKey: string): Promise<void>;
  /** Called after a job finished (done or failed for good), in the process that enqueued it — the gateway flushes replies then. */
  onSettled(listener: SettledListener): void;
  /**
   * Called as soon as a run has committed replies to the outbox (before its job completes), so the gateway can deliver
   * them at once: a worker's run once it has answered its session's queued messages, an in-process run per message.
   */
  onRepliesStored?(listener: RepliesStoredListener): void;
  /** Runs waiting to start (queued or delayed for a retry), for the `hermes_queue_waiting` gauge. */
  waiting(): Promise<number>;
  /** Graceful: stop taking jobs; wait up to drainMs for running ones (inline: abort them after that; BullMQ: leave them to be re-queued). */
  close(options?: QueueCloseOptions): Promise<void>;
}

export interface SessionLease {
  readonly key: string;
  renew(): Promise<boolean>;
  release(): Promise<void>;
}

export interface SessionLock {
  tryAcquire(sessionKey: string, ttlMs: number): Promise<SessionLease | undefined>;
}

/** What a worker reports about itself, for /healthz and /metrics. */
export interface WorkerHealth {
  /** Jobs whose processor is running right now. */
  running: number;
  /** Processor runs that ended (done, retry_later, thrown or interrupted) since start. */
  processed: number;
  /** Of those, runs whose processor threw. */
  failed: number;
  closing: boolean;
}

export type RunAbortCause = "stop" | "shutdown";

/** The `reason` of an aborted run signal: a user's stop, or the process shutting down. */
export class RunAbortedError extends Error {
  override readonly name = "RunAbortedError";
  constructor(readonly abortCause: RunAbortCause) {
    super(abortCause === "stop" ? "run stopped on request" : "run interrupted by shutdown");
  }
}

/** The queue job id of a run, shared by both queue kinds so a re-delivered inbound maps to the same job. */
export function runJobId(inboundId: number): string {
  return `run-${inboundId}`;
}

// W3C Trace Context: version 00's traceparent, and a tracestate within the recommended 512 characters.
const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;
const MAX_TRACESTATE_LENGTH = 512;

/**
 * Narrows data that crossed a process boundary (Redis) back to a job. A malformed trace context is dropped rather
 * than failing the job: losing a span's parent is better than losing someone's answer.
 */
export function parseAgentRunJob(value: unknown): AgentRunJob | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const inboundId: unknown = Reflect.get(value, "inboundId");
  const sessionKey: unknown = Reflect.get(value, "sessionKey");
  if (typeof inboundId !== "number" || !Number.isSafeInteger(inboundId)) return undefined;
  if (typeof sessionKey !== "string" || sessionKey.length === 0) return undefined;
  return { inboundId, sessionKey, ...parseTraceCarrier(value) };
}

/** The job's trace context, if it has a valid one; what a queue stores and hands to its processor. */
export function parseTraceCarrier(value: object): TraceCarrier {
  const traceparent: unknown = Reflect.get(value, "traceparent");
  const tracestate: unknown = Reflect.get(value, "tracestate");
  if (typeof traceparent !== "string" || !TRACEPARENT.test(traceparent) || /^ff|-0{32}-|-0{16}-/.test(traceparent)) return {};
  if (typeof tracestate === "string" && tracestate.length > 0 && tracestate.length <= MAX_TRACESTATE_LENGTH) return { traceparent, tracestate };
  return { traceparent };
}

/** A copy of the job holding only its own fields (callers may pass objects with more). */
export function copyAgentRunJob(job: AgentRunJob): AgentRunJob {
  return { inboundId: job.inboundId, sessionKey: job.sessionKey, ...parseTraceCarrier(job) };
}
