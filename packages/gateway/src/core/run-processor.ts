import type { AgentCallbacks, ContextCompressor, HermesAgent, HermesAgentResult, Logger } from "@hermes/agent";
import type { Message } from "@mariozechner/pi-ai";
import type { InboundRecord, NewDelivery, Store } from "@hermes/store";
import { RunAbortedError } from "../queue/types.js";
import { agentInputFor } from "./agent-input.js";
import type { InboundMessage } from "./inbound.js";
import type { HookPort } from "./ports.js";
import { isSharedSession, newSessionFor, type SessionScopeSettings } from "./session-key.js";

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
  /** The conversation's background reviewer (reflection), when enabled. */
  reviewerFor?(sessionKey: string): { onTurnStart(turn: number): void; afterRun(run: { messages: Message[]; steps: number; sessionId?: string }): void } | undefined;
  /** Called before the first run of a new session (e.g. to refresh the memory snapshot). */
  onSessionStart?(sessionId: string): Promise<void>;
  hooks: HookPort;
  sessionScope: SessionScopeSettings;
  logger: Logger;
  leaseMs?: number;
  now?: () => number;
}

const CRASH_REPLY = "Sorry, something went wrong while I was working on that. The error was logged for the bot's operator; please try again.";

/**
 * The worker side of a run. A job names one inbound message, but whoever holds a session's lock answers every queued
 * message of that session in order, so at most one run per session happens at a time across all workers. A job
 * whose session is busy elsewhere asks to be retried; it finishes once its message has been answered.
 */
export function createRunProcessor(options: RunProcessorOptions) {
  // Short enough that a run whose worker died is taken over well within 30 s (DESIGN: crash safety).
  const leaseMs = options.leaseMs ?? 15_000;
  // Conversations already told that compression stopped helping (told once, not on every reply).
  const toldThrashing = new Set<string>();
  const now = options.now ?? Date.now;

  return async (job: { inboundId: number; sessionKey: string }, context: { signal: AbortSignal }): Promise<"done" | "retry_later"> => {
    const record = await options.store.inbound.get(job.inboundId);
    if (!record || !(record.status === "queued" || record.status === "running")) return "done";
    const lease = await options.lock.tryAcquire(job.sessionKey, leaseMs);
    if (!lease) return "retry_later";
    const renewal = setInterval(() => {
      lease.renew().catch((error: unknown) => options.logger.warn("session lease renewal failed", { sessionKey: job.sessionKey, error: String(error) }));
    }, Math.max(1_000, Math.floor(leaseMs / 3)));
    try {
      for (;;) {
        if (context.signal.aborted) break;
        const next = await options.store.inbound.claimNext(job.sessionKey);
        if (!next) break;
        await runOne(next, context.signal);
      }
    } finally {
      clearInterval(renewal);
      await lease.release();
    }
    return "done";
  };

  async function runOne(record: InboundRecord, signal: AbortSignal): Promise<void> {
    const message = JSON.parse(record.payload) as InboundMessage;
    const key = record.sessionKey ?? "";
    const { session } = await options.store.sessions.getOrCreateActive(newSessionFor(message, key));
    const base = { timestamp: now(), sessionKey: key, platform: message.platform, chatId: message.chat.id, userId: message.user.id, sessionId: session.id };
    await options.hooks.emit({ ...base, type: "agent:start", inboundId: record.id });

    let result: HermesAgentResult;
    const reviewer = options.reviewerFor?.(key);
    try {
      const agent = await options.agentFor(session.model).catch((error: unknown) => {
        if (session.model === undefined) throw error;
        // A /model override that no longer resolves (key removed, model retired) falls back to the default model.
        options.logger.warn("model override unusable; using the default model", { model: session.model, error: error instanceof Error ? error.message : String(error) });
        return options.agentFor(undefined);
      });
      const history = await options.store.messages.history(session.id);
      // The gateway may have created the session already; an empty transcript is what marks a new conversation.
      if (history.length === 0) await options.onSessionStart?.(session.id);
      reviewer?.onTurnStart(history.filter((m) => m.role === "user").length + 1);
      result = await agent.run(agentInputFor(message, isSharedSession(message, options.sessionScope)), {
        history,
        sessionId: session.id,
        signal,
        chatPlatform: message.platform,
        caller: { platform: message.platform, userId: message.user.id, chatId: message.chat.id, sessionKey: key },
        callbacks: hookCallbacks(options.hooks, base, now),
        compressor: options.compressorFor?.(key),
      });
    } catch (error) {
      options.logger.error("agent run crashed", { sessionKey: key, inboundId: record.id, error: error instanceof Error ? error.message : String(error) });
      await options.store.completeRun({ inboundId: record.id, sessionId: session.id, messages: [], deliveries: [reply(record, message, CRASH_REPLY)], status: "failed" });
      await options.hooks.emit({ ...base, timestamp: now(), type: "agent:end", stopReason: "CRASH" });
      return;
    }

    if (result.stopReason === "ABORT" && signal.reason instanceof RunAbortedError && signal.reason.abortCause === "shutdown") {
      // Interrupted by a shutdown, not by the user: leave the message 'running' so it is answered after the restart
      // (or by another worker) instead of being dropped.
      options.logger.info("run interrupted by shutdown; it will run again", { inboundId: record.id, sessionKey: key });
      return;
    }

    let sessionId = session.id;
    let messages = result.newMessages;
    if (result.compacted) {
      // The transcript was rewritten: keep the original in the parent and continue in a child session.
      const child = await options.store.sessions.continueAsChild(session.id);
      sessionId = child.id;
      messages = result.history;
      await options.hooks.emit({ ...base, timestamp: now(), type: "session:compress", sessionId: child.id, parentSessionId: session.id });
    }
    const aborted = result.stopReason === "ABORT";
    let replyText = result.text;
    const compression = options.compressorFor?.(key).status();
    if (compression?.thrashing && compression.message && !toldThrashing.has(key)) {
      toldThrashing.add(key);
      replyText = `${replyText}\n\n(${compression.message})`;
    } else if (!compression?.thrashing) {
      toldThrashing.delete(key);
    }
    const finished = await options.store.completeRun({
      inboundId: record.id,
      sessionId,
      messages,
      usage: {
        inputTokens: result.usage.input,
        outputTokens: result.usage.output,
        cacheReadTokens: result.usage.cacheRead,
        cacheWriteTokens: result.usage.cacheWrite,
        costUsd: result.usage.costUsd,
      },
      // A stopped run says nothing more: /stop already answered.
      deliveries: aborted ? [] : [reply(record, message, replyText)],
      status: result.stopReason === "API_ERROR" || result.stopReason === "CONTEXT_OVERFLOW" ? "failed" : "answered",
    });
    if (!finished.ok) options.logger.warn("run result discarded", { reason: finished.reason, inboundId: record.id });
    // Reflection runs in the background and never delays the reply (which is already in the outbox).
    if (finished.ok && !aborted) reviewer?.afterRun({ messages: result.history, steps: result.steps, sessionId });
    await options.hooks.emit({ ...base, timestamp: now(), type: "agent:end", stopReason: result.stopReason, steps: result.steps, costUsd: result.usage.costUsd });
  }
}

function reply(record: InboundRecord, message: InboundMessage, text: string): NewDelivery {
  return {
    inboundId: record.id,
    sessionKey: record.sessionKey,
    platform: message.platform,
    chatId: message.chat.id,
    threadId: message.threadId,
    replyToMessageId: message.chat.type === "dm" ? undefined : message.replyToId ?? message.messageId,
    text,
    kind: "reply",
  };
}

/** Bridges the agent's observers to lifecycle hooks; `tool:before` hooks may block a call. */
function hookCallbacks(hooks: HookPort, base: Record<string, unknown> & { timestamp: number }, now: () => number): AgentCallbacks {
  return {
    onStep: async (event) => {
      await hooks.emit({ ...base, timestamp: now(), type: "agent:step", step: event.step, toolCalls: event.toolCalls.map((c) => c.name), text: event.text });
    },
    onToolStart: async (event) => {
      const outcome = await hooks.emit({ ...base, timestamp: now(), type: "tool:before", step: event.step, toolName: event.toolName, toolCallId: event.toolCallId, arguments: event.arguments });
      return outcome.blocked ? { block: true, reason: outcome.reason } : undefined;
    },
    onToolEnd: async (event) => {
      await hooks.emit({
        ...base,
        timestamp: now(),
        type: "tool:after",
        step: event.step,
        toolName: event.toolName,
        toolCallId: event.toolCallId,
        status: event.status,
        isError: event.result.isError === true,
        durationMs: event.durationMs,
        result: event.result.content.slice(0, 2_000),
      });
    },
  };
}
