import type { UsageRecord } from "@hermes/store";

/** OpenAI's `usage` object. */
export interface CompletionUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
}

export type RunUsage = Pick<UsageRecord, "inputTokens" | "outputTokens" | "cacheReadTokens" | "cacheWriteTokens">;

/** OpenAI counts cached prompt tokens inside `prompt_tokens`; the store keeps them apart. */
export function completionUsage(usage: RunUsage): CompletionUsage {
  const prompt = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  return { prompt_tokens: prompt, completion_tokens: usage.outputTokens, total_tokens: prompt + usage.outputTokens, prompt_tokens_details: { cached_tokens: usage.cacheReadTokens } };
}

/** What every object of one answer shares: its id, creation time (seconds) and the model named in the request. */
export interface CompletionHead {
  id: string;
  created: number;
  model: string;
}

export function completionBody(head: CompletionHead, text: string, usage: CompletionUsage): Record<string, unknown> {
  return {
    id: head.id,
    object: "chat.completion",
    created: head.created,
    model: head.model,
    choices: [{ index: 0, message: { role: "assistant", content: text, refusal: null }, logprobs: null, finish_reason: "stop" }],
    usage,
    system_fingerprint: null,
  };
}

/** One `chat.completion.chunk`: a delta, the closing `finish_reason`, or (with `choices: []`) the usage. */
export function chunkBody(head: CompletionHead, part: { delta?: Record<string, string>; finish?: "stop"; usage?: CompletionUsage }): Record<string, unknown> {
  const choices = part.usage ? [] : [{ index: 0, delta: part.delta ?? {}, logprobs: null, finish_reason: part.finish ?? null }];
  return { id: head.id, object: "chat.completion.chunk", created: head.created, model: head.model, choices, usage: part.usage ?? null, system_fingerprint: null };
}

export function modelList(created: number): Record<string, unknown> {
  return { object: "list", data: [{ id: "hermes", object: "model", created, owned_by: "hermes" }] };
}

/** The error kinds the API answers with, by HTTP status. */
export type ApiErrorKind = "bad_request" | "unauthorized" | "session_busy" | "rate_limited" | "run_failed" | "internal" | "unavailable" | "timeout";

const ERRORS: Record<ApiErrorKind, { status: number; type: string; code: string }> = {
  bad_request: { status: 400, type: "invalid_request_error", code: "invalid_request" },
  unauthorized: { status: 401, type: "invalid_request_error", code: "invalid_api_key" },
  session_busy: { status: 409, type: "invalid_request_error", code: "session_busy" },
  rate_limited: { status: 429, type: "rate_limit_error", code: "rate_limit_exceeded" },
  internal: { status: 500, type: "server_error", code: "internal_error" },
  run_failed: { status: 502, type: "server_error", code: "run_failed" },
  unavailable: { status: 503, type: "server_error", code: "unavailable" },
  timeout: { status: 504, type: "server_error", code: "timeout" },
};

export interface ApiError {
  status: number;
  body: { error: { message: string; type: string; param: string | null; code: string } };
  headers?: Record<string, string>;
}

/** OpenAI's error format, `{error: {message, type, param, code}}`, with its status. */
export function apiError(kind: ApiErrorKind, message: string, param?: string): ApiError {
  const { status, type, code } = ERRORS[kind];
  return { status, body: { error: { message, type, param: param ?? null, code } } };
}

/**
 * The official OpenAI clients send a request again after a 5xx (twice by default) unless told otherwise by this
 * header: after an error that came once the agent may have run (tools included), a second run would repeat it.
 */
export function notToBeRetried(error: ApiError): ApiError {
  return { ...error, headers: { ...error.headers, "x-should-retry": "false" } };
}

/** One server-sent event carrying `data` as JSON (or the literal `[DONE]`). */
export function sseEvent(data: unknown): string {
  return `data: ${data === "[DONE]" ? "[DONE]" : JSON.stringify(data)}\n\n`;
}
