import { stream, type Api, type AssistantMessage, type Context, type Model } from "@mariozechner/pi-ai";
import { withResponseCapture, type CapturedResponse } from "./http-capture.js";

/** A model together with the credentials used to reach it. */
export interface ModelBinding {
  model: Model<Api>;
  apiKey?: string;
  /** Every configured key, `apiKey` first: on a rejected key or an empty quota the next one is tried. */
  apiKeys?: readonly string[];
  /** Extra provider options passed through to pi-ai (e.g. temperature, maxTokens). */
  temperature?: number;
  maxTokens?: number;
}

const DEFAULT_STREAM_IDLE_MS = 120_000;

export interface ModelCallResult {
  message: AssistantMessage;
  /** The HTTP response that ended the call, when the provider spoke HTTP (status, Retry-After, …). */
  response?: CapturedResponse;
}

/**
 * One streamed LLM call. Provider failures come back as `stopReason: "error"` (pi-ai never throws for them); the SDK's
 * own retries are off so retry, backoff and fallback are decided in one place above this.
 */
export async function callModel(
  binding: ModelBinding,
  context: Context,
  options: { signal: AbortSignal; sessionId?: string; onTextDelta?: (delta: string) => void; timeoutMs?: number; idleTimeoutMs?: number },
): Promise<ModelCallResult> {
  // The SDK's request timeout ends once headers arrive; a stream that then goes quiet is cut off here.
  const idleMs = options.idleTimeoutMs ?? DEFAULT_STREAM_IDLE_MS;
  const idle = new AbortController();
  let idleTimer = setTimeout(() => idle.abort(), idleMs);
  const stillAlive = (): void => {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => idle.abort(), idleMs);
  };
  const signal = AbortSignal.any([options.signal, idle.signal]);
  const { value, response } = await withResponseCapture(async () => {
    try {
      const events = stream(binding.model, context, {
        apiKey: binding.apiKey,
        signal,
        sessionId: options.sessionId,
        maxRetries: 0,
        temperature: binding.temperature,
        maxTokens: binding.maxTokens,
        timeoutMs: options.timeoutMs,
      });
      for await (const event of events) {
        stillAlive();
        if (event.type === "text_delta") options.onTextDelta?.(event.delta);
      }
      return await events.result();
    } catch (error) {
      // A provider adapter that throws synchronously (e.g. a missing key) is still a provider failure, not a bug here.
      return failedMessage(binding.model, error instanceof Error ? error.message : String(error), options.signal.aborted);
    } finally {
      clearTimeout(idleTimer);
    }
  });
  if (idle.signal.aborted && !options.signal.aborted) {
    // Classified as a timeout (retryable), not as the caller's abort.
    return { message: failedMessage(binding.model, `Request timed out: no data from the provider for ${Math.round(idleMs / 1000)} s.`, false), response };
  }
  return { message: value, response };
}

function failedMessage(model: Model<Api>, errorMessage: string, aborted: boolean): AssistantMessage {
  return {
    role: "assistant",
    content: [],
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: aborted ? "aborted" : "error",
    errorMessage,
    timestamp: Date.now(),
  };
}
