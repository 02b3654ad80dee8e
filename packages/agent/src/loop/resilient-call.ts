import type { AssistantMessage, Context, Message } from "@mariozechner/pi-ai";
import { classifyProviderError, type ClassifiedError } from "../errors/classify.js";
import { jitteredBackoffMs } from "../errors/backoff.js";
import type { Logger } from "../observability/logger.js";
import { SpanKind } from "@opentelemetry/api";
import { markFailed, startChildSpan, withActiveScope, type SpanScope } from "../observability/tracer.js";
import { GEN_AI, HERMES_ATTRIBUTES, HTTP_STATUS_CODE, SPAN_NAMES } from "../observability/tracer-names.js";
import type { BudgetTracker } from "./budget.js";
import { invokeSafelySync, type AgentCallbacks } from "./callbacks.js";
import { callModel, type ModelBinding } from "./model-call.js";
import { bindingSecrets, withNextApiKey } from "../models/api-keys.js";

export interface RetryPolicy {
  baseDelayMs: number;
  maxDelayMs: number;
  /** A provider asking us to wait longer than this is treated as exhausted (fallback or error) instead of waited on. */
  maxRetryAfterMs: number;
  /** Per-request timeout handed to the provider SDK (until the response starts). */
  requestTimeoutMs: number;
  /** A streaming response that sends nothing for this long is cut off and retried as a timeout. */
  streamIdleMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  baseDelayMs: 1_000,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 120_000,
  requestTimeoutMs: 300_000,
  streamIdleMs: 120_000,
};

/** Rewrites the transcript to fit the context window; null when it could not. Supplied by the memory/compression layer. */
export type CompressMessages = (
  messages: Message[],
  info: { reason: "overflow"; signal: AbortSignal },
) => Promise<Message[] | null>;

export interface RecoveryDeps {
  fallback?: ModelBinding;
  budget: BudgetTracker;
  retry: RetryPolicy;
  logger: Logger;
  callbacks: AgentCallbacks;
  signal: AbortSignal;
  sessionId: string;
  step: number;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  random?: () => number;
  compress?: CompressMessages;
  /** The run's span scope: each model call and compression is a child span in it. */
  spans: SpanScope;
  /** Extra attributes for each attempt's chat span (e.g. that this is the grace call). */
  spanAttributes?: Record<string, string | number | boolean>;
  onAttempt: (message: AssistantMessage, binding: ModelBinding) => void;
}

/**
 * Mutable per-run state: once the fallback model or the next API key is taken, the rest of the run stays on it.
 * `binding` may be a copy of the configured one with another of its keys, so the fallback is tracked by a flag.
 */
export interface ModelState {
  binding: ModelBinding;
  authFailures: number;
  onFallback?: boolean;
}

export type RecoveredCall =
  | { ok: true; message: AssistantMessage; messages: Message[]; compacted: boolean }
  | { ok: false; code: "ABORT" }
  | { ok: false; code: "API_ERROR" | "CONTEXT_OVERFLOW"; error: ClassifiedError; messages: Message[]; compacted: boolean };

/**
 * One logical model call with recovery: classify each failure, back off (honouring Retry-After) while it is worth it,
 * compress on context overflow, switch to the fallback model when the hint says so, and give up with a classified error.
 */
export async function callWithRecovery(
  state: ModelState,
  initialMessages: Message[],
  buildContext: (messages: Message[]) => Context,
  deps: RecoveryDeps,
): Promise<RecoveredCall> {
  let messages = initialMessages;
  let compacted = false;
  let attempts = 0;

  for (;;) {
    attempts += 1;
    // One span per attempt, so retries and a switch to the fallback model show as separate calls.
    const { span, scope } = startChildSpan(deps.spans, SPAN_NAMES.chat(state.binding.model.id), {
      kind: SpanKind.CLIENT,
      attributes: {
        ...chatAttributes(state.binding),
        [HERMES_ATTRIBUTES.step]: deps.step,
        [HERMES_ATTRIBUTES.attempt]: attempts,
        [HERMES_ATTRIBUTES.fallback]: state.onFallback === true,
        ...deps.spanAttributes,
      },
    });
    const { message, response } = await withActiveScope(scope, () => callModel(state.binding, buildContext(messages), {
      signal: deps.signal,
      sessionId: deps.sessionId,
      timeoutMs: deps.retry.requestTimeoutMs,
      idleTimeoutMs: deps.retry.streamIdleMs,
      onTextDelta: (delta) => invokeSafelySync(deps.logger, "onTextDelta", deps.callbacks.onTextDelta && (() => deps.callbacks.onTextDelta?.(delta, { step: deps.step }))),
    }));
    deps.onAttempt(message, state.binding);
    span.setAttributes(chatResultAttributes(message));

    if (deps.signal.aborted || message.stopReason === "aborted") {
      markFailed(span, "aborted");
      span.end();
      return { ok: false, code: "ABORT" };
    }
    if (message.stopReason !== "error") {
      span.end();
      return { ok: true, message, messages, compacted };
    }

    const failure = classifyProviderError({
      message: message.errorMessage ?? "unknown provider error",
      status: response && response.status >= 400 ? response.status : undefined,
      headers: response && response.status >= 400 ? response.headers : undefined,
      previousAuthFailures: state.authFailures,
      knownSecrets: [...bindingSecrets(state.binding), ...bindingSecrets(deps.fallback)],
    });
    if (failure.status !== undefined) span.setAttribute(HTTP_STATUS_CODE, failure.status);
    markFailed(span, failure.errorClass, failure.message);
    span.end();
    if (failure.errorClass === "auth" || failure.errorClass === "auth_permanent") state.authFailures += 1;
    deps.logger.warn("model call failed", {
      provider: state.binding.model.provider,
      model: state.binding.model.id,
      attempt: attempts,
      errorClass: failure.errorClass,
      status: failure.status,
      error: failure.message,
    });

    if (failure.hint.shouldCompress) {
      if (deps.compress && deps.budget.tryConsumeCompaction()) {
        notify(deps, { kind: "compression", message: "Context too large for the model; compressing the conversation.", details: { errorClass: failure.errorClass } });
        const { span, scope } = startChildSpan(deps.spans, SPAN_NAMES.compression, {
          attributes: { "hermes.compression.reason": "overflow", "hermes.compression.messages_before": messages.length },
        });
        const compress = deps.compress;
        const compressed = await withActiveScope(scope, () => runCompression(compress, messages, deps.signal, deps.logger));
        span.setAttributes({ "hermes.compression.messages_after": compressed?.length ?? messages.length, "hermes.compression.compressed": compressed !== null });
        if (!compressed) markFailed(span, "compression_failed", "compression produced nothing");
        span.end();
        if (compressed) {
          messages = compressed;
          compacted = true;
          attempts = 0;
          continue;
        }
      }
      return { ok: false, code: "CONTEXT_OVERFLOW", error: failure, messages, compacted };
    }

    const retryAfter = failure.retryAfterMs;
    const waitTooLong = retryAfter !== undefined && retryAfter > deps.retry.maxRetryAfterMs;
    const retrySameKey = failure.hint.retryable && attempts < deps.budget.limits.maxModelAttempts && !waitTooLong;
    // A rejected key or an empty quota will not get better by waiting; a rate limit is waited out first, then rotated.
    const rotated = failure.hint.shouldRotateCredential && !retrySameKey ? withNextApiKey(state.binding) : undefined;
    if (rotated) {
      const keys = rotated.apiKeys ?? [];
      const position = rotated.apiKey === undefined ? 0 : keys.indexOf(rotated.apiKey) + 1;
      notify(deps, { kind: "retry", message: `Model call failed (${failure.errorClass}); retrying with the next API key.`, details: { attempt: attempts, errorClass: failure.errorClass, apiKey: position, apiKeys: keys.length } });
      // Which key is in use is told by its position; the key itself never reaches a log.
      deps.logger.warn("rotating to the next API key", { errorClass: failure.errorClass, apiKey: position, apiKeys: keys.length });
      state.binding = rotated;
      state.authFailures = 0;
      attempts = 0;
      continue;
    }
    if (retrySameKey) {
      const backoff = jitteredBackoffMs(attempts, { baseDelayMs: deps.retry.baseDelayMs, maxDelayMs: deps.retry.maxDelayMs, random: deps.random });
      const delayMs = Math.max(backoff, retryAfter ?? 0);
      notify(deps, { kind: "retry", message: `Model call failed (${failure.errorClass}); retrying in ${Math.round(delayMs)} ms.`, details: { attempt: attempts, delayMs, errorClass: failure.errorClass, retryAfterMs: retryAfter } });
      await deps.sleep(delayMs, deps.signal);
      if (deps.signal.aborted) return { ok: false, code: "ABORT" };
      continue;
    }

    const canFallBack = deps.fallback !== undefined && state.onFallback !== true;
    if (canFallBack && (failure.hint.shouldFallback || failure.hint.retryable) && deps.fallback) {
      notify(deps, {
        kind: "fallback",
        message: `Switching to the fallback model ${deps.fallback.model.provider}/${deps.fallback.model.id} after ${failure.errorClass}.`,
        details: { from: `${state.binding.model.provider}/${state.binding.model.id}`, errorClass: failure.errorClass },
      });
      deps.logger.warn("switching to fallback model", { errorClass: failure.errorClass, fallback: deps.fallback.model.id });
      state.binding = deps.fallback;
      state.onFallback = true;
      state.authFailures = 0;
      attempts = 0;
      continue;
    }
    return { ok: false, code: "API_ERROR", error: failure, messages, compacted };
  }
}

/** What a chat span says about the model it calls (gen_ai.provider.name and the older gen_ai.system alike). */
export function chatAttributes(binding: ModelBinding): Record<string, string> {
  return {
    [GEN_AI.operationName]: "chat",
    [GEN_AI.providerName]: binding.model.provider,
    [GEN_AI.system]: binding.model.provider,
    [GEN_AI.requestModel]: binding.model.id,
  };
}

/** What a chat span says about the answer: never its text, only how it ended and what it cost in tokens. */
export function chatResultAttributes(message: AssistantMessage): Record<string, string | number | string[]> {
  return {
    [GEN_AI.responseFinishReasons]: [message.stopReason],
    [GEN_AI.responseModel]: message.responseModel ?? message.model,
    [GEN_AI.inputTokens]: message.usage.input,
    [GEN_AI.outputTokens]: message.usage.output,
  };
}

/** A compressor that throws is treated like one that could not compress: the overflow is then reported. */
async function runCompression(
  compress: CompressMessages,
  messages: Message[],
  signal: AbortSignal,
  logger: Logger,
): Promise<Message[] | null> {
  try {
    return await compress(messages, { reason: "overflow", signal });
  } catch (error) {
    logger.error("context compression failed", { error: error instanceof Error ? error.message : String(error) });
    return null;
  }
}

function notify(deps: RecoveryDeps, event: Parameters<NonNullable<AgentCallbacks["onStatus"]>>[0]): void {
  invokeSafelySync(deps.logger, "onStatus", deps.callbacks.onStatus && (() => deps.callbacks.onStatus?.(event)));
}
