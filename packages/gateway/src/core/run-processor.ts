import type { HermesAgentResult, Logger, MemoryManager } from "@hermes/agent";
import { SpanKind, trace, type Context, type Span } from "@opentelemetry/api";
import { isStoreUnavailableError, type ClaimedInbound, type InboundRecord, type NewDelivery, type Store } from "@hermes/store";
import { RunAbortedError, runJobId, type AgentRunJob } from "../queue/types.js";
import { errorMessageOf, errorTypeOf, GATEWAY_SPAN_NAMES, gatewayTracer, markSpanFailed } from "../tracing/gateway-tracer.js";
import { contextFromCarrier, storedTraceCarrier } from "../tracing/trace-carrier.js";
import { userInputFor } from "../attachments/attachment-content.js";
import { noVisionNotice } from "../attachments/no-vision-notice.js";
import { withoutImageData } from "../attachments/transcript-images.js";
import { budgetReachedReply, dailyBudgetStatus } from "./daily-budget.js";
import { hookCallbacks } from "./hook-callbacks.js";
import { runCallbacks } from "./run-callbacks.js";
import { createStreamPublisher } from "../streaming/stream-publisher.js";
import { runCheckpoints } from "./run-checkpoints.js";
import { peopleOf, runPersonalData, senderOf } from "./run-personal-data.js";
import type { InboundMessage } from "./inbound.js";
import { guardLease } from "./session-lease-guard.js";
import { isSharedSession, newSessionFor } from "./session-key.js";
import type { RunProcessorOptions } from "./run-processor-options.js";

export type { RunProcessorOptions, SessionLease } from "./run-processor-options.js";

/** How one message's run ended, as its span reports it. */
type RunEnd = "answered" | "failed" | "interrupted" | "discarded" | "over_budget";

const CRASH_REPLY = "Sorry, something went wrong while I was working on that. The error was logged for the bot's operator; please try again.";

/**
 * The worker side of a run. A job names one inbound message, but whoever holds a session's lock answers every queued
 * message of that session in order, so at most one run per session happens at a time across all workers. A job
 * whose session is busy elsewhere answers "retry_later": its queue parks it until the lock's holder releases the session
 * (the lock the processor is given wakes the parked runs on release); it finishes once its message has been answered.
 */
export function createRunProcessor(options: RunProcessorOptions) {
  // Short enough that a run whose worker died is taken over well within 30 s (DESIGN: crash safety).
  const leaseMs = options.leaseMs ?? 15_000;
  // Conversations already told that compression stopped helping (told once, not on every reply).
  const toldThrashing = new Set<string>();
  const now = options.now ?? Date.now;
  // Messages whose replies were just committed; each run takes out the ones it answered.
  const withStoredReplies = new Set<number>();
  const completeRun: Store["completeRun"] = async (input) => {
    const done = await options.store.completeRun(input);
    if (done.ok && input.deliveries.length > 0) {
      withStoredReplies.add(input.inboundId);
      options.onReplyStored?.(input.inboundId);
    }
    return done;
  };

  return async (job: AgentRunJob, context: { signal: AbortSignal }): Promise<"done" | "retry_later"> => {
    const record = await options.store.inbound.get(job.inboundId);
    if (!record || !(record.status === "queued" || record.status === "running")) return "done";
    const lease = await options.lock.tryAcquire(job.sessionKey, leaseMs);
    if (!lease) return "retry_later";
    const guard = guardLease(lease, { leaseMs, sessionKey: job.sessionKey, logger: options.logger.child({ runId: runJobId(job.inboundId), sessionKey: job.sessionKey }) });
    const signal = AbortSignal.any([context.signal, guard.lost]);
    const answered: number[] = [];
    try {
      for (;;) {
        if (signal.aborted) break;
        const next = await options.store.inbound.claimNext(job.sessionKey);
        if (!next) break;
        // Only the job's own message comes with its intake's trace context. A message that arrived meanwhile and is
        // answered in this loop (or one re-enqueued after a restart) joins its trace through the context saved with it.
        const fromJob = next.id === job.inboundId && job.traceparent !== undefined;
        await runTraced(next, signal, contextFromCarrier(fromJob ? job : storedTraceCarrier(next.traceContext)));
        if (withStoredReplies.delete(next.id)) answered.push(next.id);
      }
    } finally {
      if (answered.length > 0) options.onRepliesStored?.(answered);
      guard.stop();
      await lease.release();
    }
    // A lost lease leaves the message "running" for whoever owns the session now. If nobody does (Redis was away, not
    // another worker), completing the job would strand it: a later enqueue of the same job id is a no-op. Asking to
    // run again instead finds it answered, or answers it, once the session is free.
    if (guard.lost.aborted && !context.signal.aborted) return "retry_later";
    return "done";
  };

  /** One message's run as a span (the parent of the agent's spans), with a logger that names the run. */
  function runTraced(record: ClaimedInbound, signal: AbortSignal, parent: Context): Promise<void> {
    const attributes = { "messaging.operation.type": "process", "messaging.message.id": runJobId(record.id), "hermes.inbound_id": record.id, "hermes.session_key": record.sessionKey ?? "" };
    return gatewayTracer().startActiveSpan(GATEWAY_SPAN_NAMES.run, { kind: SpanKind.CONSUMER, attributes }, parent, async (span) => {
      try {
        await runOneSafely(record, signal, span, runLogger(record, span));
      } finally {
        span.end();
      }
    });
  }

  function runLogger(record: InboundRecord, span: Span): Logger {
    const spanContext = span.spanContext();
    const traceId = trace.isSpanContextValid(spanContext) ? { traceId: spanContext.traceId } : {};
    return options.logger.child({ runId: runJobId(record.id), sessionKey: record.sessionKey ?? "", inboundId: record.id, ...traceId });
  }

  /** Whatever goes wrong, the person gets an answer and the message leaves the queue (unless another worker owns it). */
  async function runOneSafely(record: ClaimedInbound, signal: AbortSignal, span: Span, logger: Logger): Promise<void> {
    let end: RunEnd;
    try {
      end = await runOne(record, signal, logger);
      // The agent's own span says why (error.type is the provider error's class); this one says the run failed.
      if (end === "failed") markSpanFailed(span, "run_failed", "the agent could not answer");
    } catch (error) {
      logger.error("run failed", { error });
      markSpanFailed(span, errorTypeOf(error), errorMessageOf(error));
      if (handedOver(signal)) end = "interrupted";
      // The database was out of reach (a restart, a failover, a cut connection): the queue runs it again (waiting while
      // the database is away), where the crash reply would answer a message the run can still answer.
      else if (isStoreUnavailableError(error)) throw error;
      else {
        await failRun(record, logger);
        end = "failed";
      }
    }
    span.setAttribute("hermes.run.outcome", end);
  }

  async function failRun(record: InboundRecord, logger: Logger): Promise<void> {
    const message = JSON.parse(record.payload) as InboundMessage;
    try {
      const { session } = await options.store.sessions.getOrCreateActive(newSessionFor(message, record.sessionKey ?? ""));
      const done = await completeRun({ inboundId: record.id, sessionId: session.id, messages: [], deliveries: [reply(record, message, CRASH_REPLY)], status: "failed" });
      if (done.ok) return;
    } catch (error) {
      logger.error("could not record the failed run", { error });
    }
    await options.store.inbound.setStatus(record.id, "failed");
  }

  async function runOne(record: ClaimedInbound, signal: AbortSignal, logger: Logger): Promise<RunEnd> {
    const message = JSON.parse(record.payload) as InboundMessage;
    const key = record.sessionKey ?? "";
    const { session } = await options.store.sessions.getOrCreateActive(newSessionFor(message, key));
    if (await answeredOverBudget(record, message, session.id, logger)) return "over_budget";
    await options.beforeRun?.(key, session.id);
    const base = { timestamp: now(), sessionKey: key, platform: message.platform, chatId: message.chat.id, userId: message.user.id, sessionId: session.id };
    await options.hooks.emit({ ...base, type: "agent:start", inboundId: record.id });

    const memory = await options.memoryFor?.(message, session.id);
    const reviewer = options.reviewerFor?.(key, memory?.manager);
    const agent = await options.agentFor(session.model).catch((error: unknown) => {
      if (session.model === undefined) throw error;
      // A /model override that no longer resolves (key removed, model retired) falls back to the default model.
      logger.warn("model override unusable; using the default model", { model: session.model, error });
      return options.agentFor(undefined);
    });
    const history = await options.store.messages.history(session.id);
    // The gateway may have created the session already; an empty transcript is what marks a new conversation.
    if (history.length === 0) await options.onSessionStart?.(session.id);
    reviewer?.onTurnStart(history.filter((m) => m.role === "user").length + 1);
    const input = await userInputFor(message, {
      workspace: options.workspace,
      acceptsImages: agent.acceptsImages,
      contextWindow: agent.contextWindow,
      shared: isSharedSession(message, options.sessionScope),
      logger,
    });
    const stream = options.streamTo && createStreamPublisher({ inboundId: record.id, target: replyTarget(message), publish: options.streamTo, logger });
    const result = await agent.run(input.content, {
      history,
      sessionId: session.id,
      signal,
      chatPlatform: message.platform,
      caller: {
        platform: message.platform,
        userId: message.user.id,
        chatId: message.chat.id,
        chatType: message.chat.type,
        ...(message.threadId !== undefined && { threadId: message.threadId }),
        sessionKey: key,
        personalData: runPersonalData(peopleOf(message, history), memory?.manager),
      },
      callbacks: runCallbacks({
        hooks: hookCallbacks(options.hooks, base, now),
        approval: options.approvalGate?.({ inboundId: record.id, sessionKey: key, sessionId: session.id, message, target: replyTarget(message), signal }),
        stream: stream?.callbacks,
      }),
      compressor: options.compressorFor?.(key),
      checkpoints: await runCheckpoints(options.store, record, logger),
      memory: memory?.manager,
      memoryTools: memory?.tools,
    }).finally(() => stream?.stop());
    if (result.stopReason === "ABORT" && !handedOver(signal)) stream?.settle();

    if (result.stopReason === "ABORT" && handedOver(signal)) {
      // Cut short by a shutdown or a lost lease, not by the person: leave the message 'running' so it is answered
      // after the restart or by the worker that owns the session now.
      logger.info("run interrupted; it will run again");
      return "interrupted";
    }
    return finish(record, message, session.id, result, base, logger, memory?.manager, noVisionNotice(input.unseenImages, history));
  }

  /** Checked before each run (not at intake): the spend of runs still going when the message arrived counts too. */
  async function answeredOverBudget(record: InboundRecord, message: InboundMessage, sessionId: string, logger: Logger): Promise<boolean> {
    if (options.dailyBudgetUsd === undefined) return false;
    const at = now();
    const status = await dailyBudgetStatus(options.store.usage, ownerOf(message), options.dailyBudgetUsd, at);
    if (status.kind !== "reached") return false;
    logger.info("daily budget reached; answered without the model", { spentUsd: status.spentUsd, budgetUsd: status.budgetUsd });
    options.onBudgetRefused?.(message);
    // Nothing goes into the transcript: the model never saw the message, and a later answer should not either.
    const done = await completeRun({ inboundId: record.id, sessionId, messages: [], deliveries: [reply(record, message, budgetReachedReply(status, at))] });
    if (!done.ok) logger.warn("budget reply discarded", { reason: done.reason });
    return true;
  }

  async function finish(
    record: InboundRecord,
    message: InboundMessage,
    sessionId: string,
    result: HermesAgentResult,
    base: Record<string, unknown> & { timestamp: number; sessionKey: string },
    logger: Logger,
    memory?: MemoryManager,
    notice?: string,
  ): Promise<RunEnd> {
    const key = base.sessionKey;
    const stopped = result.stopReason === "ABORT";
    // A stopped run keeps nothing of a compression it did: /stop or /new may already have moved the conversation on.
    const compacted = result.compacted && !stopped;
    const finished = await completeRun({
      inboundId: record.id,
      sessionId,
      messages: withoutImageData(compacted ? result.history : result.compacted ? [] : result.newMessages),
      compacted,
      usage: {
        inputTokens: result.usage.input,
        outputTokens: result.usage.output,
        cacheReadTokens: result.usage.cacheRead,
        cacheWriteTokens: result.usage.cacheWrite,
        costUsd: result.usage.costUsd,
      },
      usageOwner: ownerOf(message),
      // A stopped run says nothing more: /stop already answered.
      deliveries: stopped ? [] : [reply(record, message, withNotice(replyText(key, result.text), notice))],
      status: failedRun(result) ? "failed" : "answered",
    });
    if (!finished.ok) {
      logger.warn("run result discarded", { reason: finished.reason });
      if (finished.reason === "session_changed") await failRun(record, logger);
      return "discarded";
    }
    if (compacted) await options.hooks.emit({ ...base, timestamp: now(), type: "session:compress", sessionId: finished.sessionId, parentSessionId: sessionId });
    await options.hooks.emit({ ...base, timestamp: now(), type: "agent:end", stopReason: result.stopReason, steps: result.steps, costUsd: result.usage.costUsd });
    // Reflection runs in the background and never delays the reply (which is already in the outbox).
    if (!stopped) options.reviewerFor?.(key, memory)?.afterRun({ messages: withoutImageData(result.history), steps: result.steps, sessionId: finished.sessionId, personalData: senderOf(message) });
    return failedRun(result) ? "failed" : "answered";
  }

  function replyText(key: string, text: string): string {
    const compression = options.compressorFor?.(key).status();
    if (compression?.thrashing && compression.message && !toldThrashing.has(key)) {
      toldThrashing.add(key);
      return `${text}\n\n(${compression.message})`;
    }
    if (!compression?.thrashing) toldThrashing.delete(key);
    return text;
  }
}

/** Whose budget a run counts against: the person whose message it answers (in a shared thread, its sender). */
function ownerOf(message: InboundMessage): { platform: string; userId: string } {
  return { platform: message.platform, userId: message.user.id };
}

function withNotice(text: string, notice: string | undefined): string {
  return notice === undefined ? text : `${text}\n\n${notice}`;
}

function failedRun(result: HermesAgentResult): boolean {
  return result.stopReason === "API_ERROR" || result.stopReason === "CONTEXT_OVERFLOW";
}

/** True when the run stopped because this worker no longer owns it (shutdown, lost lease), not because of /stop. */
function handedOver(signal: AbortSignal): boolean {
  if (!signal.aborted) return false;
  const reason: unknown = signal.reason;
  return !(reason instanceof RunAbortedError && reason.abortCause === "stop");
}

function reply(record: InboundRecord, message: InboundMessage, text: string): NewDelivery {
  return { inboundId: record.id, sessionKey: record.sessionKey, ...replyTarget(message), text, kind: "reply" };
}

/** Where a run's replies go: in groups they quote the message they answer. */
function replyTarget(message: InboundMessage): Pick<NewDelivery, "platform" | "chatId" | "threadId" | "replyToMessageId"> {
  return {
    platform: message.platform,
    chatId: message.chat.id,
    threadId: message.threadId,
    replyToMessageId: message.chat.type === "dm" ? undefined : message.replyToId ?? message.messageId,
  };
}
