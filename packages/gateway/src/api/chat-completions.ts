import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import type { Logger } from "@hermes/agent";
import type { Store } from "@hermes/store";
import type { HttpHandler, HttpRequestInfo } from "../core/adapter.js";
import type { InboundMessage } from "../core/inbound.js";
import { sessionKeyFor } from "../core/session-key.js";
import { bearerMatches } from "../http/bearer-token.js";
import type { StreamingHttpHandler } from "../http/http-server.js";
import { API_PLATFORM, type ApiAdapter } from "./api-adapter.js";
import { parseChatRequest, type ChatRequest } from "./chat-request.js";
import { CompletionStream } from "./completion-stream.js";
import { apiError, completionBody, completionUsage, modelList, notToBeRetried, type ApiError, type ApiErrorKind } from "./openai-format.js";
import { preloadHistory } from "./request-history.js";
import { usageBetween, usageSnapshot } from "./run-usage.js";

export const SESSION_HEADER = "x-hermes-session-id";

/** Whose memory and limits a request without OpenAI's `user` field uses. */
export const DEFAULT_API_USER = "default";

const SESSION_ID = /^[A-Za-z0-9_.-]{1,128}$/;

export interface ApiRouteDeps {
  /** HERMES_API_SERVER_KEY. */
  key: string;
  adapter: ApiAdapter;
  store: Pick<Store, "sessions" | "messages" | "usage">;
  logger: Logger;
  /** How long a request waits for its answer before its run is stopped and it gets 504. */
  timeoutMs: number;
  now?: () => number;
  newId?: () => string;
}

const JSON_HEADERS = { "content-type": "application/json", "cache-control": "no-store" };

/** Refusals of a request that never became a run: sending it again is safe (and may well succeed). */
const STARTED_NO_RUN: ReadonlySet<ApiErrorKind> = new Set(["bad_request", "unauthorized", "session_busy", "rate_limited"]);

/** `GET /v1/models`: the one model every name maps to. */
export function modelsHandler(deps: Pick<ApiRouteDeps, "key" | "now">): HttpHandler {
  const created = Math.floor((deps.now ?? Date.now)() / 1000);
  return async (request) => {
    if (!bearerMatches(request.headers.authorization, deps.key)) return asResponse(unauthorized());
    return { status: 200, body: JSON.stringify(modelList(created)), headers: JSON_HEADERS };
  };
}

/** `POST /v1/chat/completions`: a request becomes a message of platform `api`, answered by the full agent. */
export function chatCompletionsHandler(deps: ApiRouteDeps): StreamingHttpHandler {
  const now = deps.now ?? Date.now;
  const newId = deps.newId ?? (() => randomUUID().replaceAll("-", ""));
  const handle: StreamingHttpHandler = async (request, response) => {
    // Listened for from the start: a caller may leave while the conversation is being prepared.
    const gone = new AbortController();
    const leave = (): void => {
      if (!response.writableEnded) gone.abort();
    };
    response.on("close", leave);
    if (response.socket === null || response.socket.destroyed) leave();
    const accepted = acceptRequest(deps, request);
    if (!accepted.ok) return writeError(response, accepted.error);
    const { chat, sessionId } = accepted;
    const id = newId();
    const message = inboundOf(chat, sessionId ?? `r${id}`, `${id}`, now());
    const sessionKey = sessionKeyFor(message);
    if (sessionId === undefined) await preloadHistory(deps.store, message, sessionKey, chat.history, now());
    const before = await usageSnapshot(deps.store, sessionKey);
    const head = { id: `chatcmpl-${id}`, created: Math.floor(now() / 1000), model: chat.model };
    const stream = chat.stream ? new CompletionStream(response, head) : undefined;

    const late = new AbortController();
    const timer = setTimeout(() => late.abort(), deps.timeoutMs);
    const outcome = await deps.adapter
      .submit({ message, sessionKey, signal: AbortSignal.any([gone.signal, late.signal]), ...(stream && { onStreamText: (text: string) => stream.stepText(text) }) })
      .finally(() => clearTimeout(timer));

    if (outcome.kind === "abandoned") {
      if (gone.signal.aborted) return;
      const minutes = Math.round(deps.timeoutMs / 60_000);
      const error = notToBeRetried(apiError("timeout", `No answer within ${minutes >= 1 ? `${minutes} minutes` : `${deps.timeoutMs} ms`}; the run was stopped.`));
      return stream ? stream.fail(error) : writeError(response, error);
    }
    if (outcome.kind === "error") {
      const refused = apiError(outcome.error, outcome.message);
      const error = STARTED_NO_RUN.has(outcome.error) ? refused : notToBeRetried(refused);
      return stream ? stream.fail(error) : writeError(response, error);
    }
    const usage = completionUsage(usageBetween(before, await usageSnapshot(deps.store, sessionKey)));
    if (stream) stream.finish(outcome.text, chat.includeUsage ? usage : undefined);
    else response.writeHead(200, JSON_HEADERS).end(JSON.stringify(completionBody(head, outcome.text, usage)));
  };
  return async (request, response) => {
    try {
      await handle(request, response);
    } catch (error) {
      deps.logger.error("an API request failed", { error });
      writeError(response, notToBeRetried(apiError("internal", "The request failed inside the gateway; the operator's log has the cause.")));
    }
  };
}

type Accepted = { ok: true; chat: ChatRequest; sessionId?: string } | { ok: false; error: ApiError };

function acceptRequest(deps: ApiRouteDeps, request: HttpRequestInfo): Accepted {
  if (!bearerMatches(request.headers.authorization, deps.key)) return { ok: false, error: unauthorized() };
  if (!deps.adapter.accepting) return { ok: false, error: apiError("unavailable", "The gateway is not taking API requests (it is a standby or shutting down); try again shortly.") };
  let body: unknown;
  try {
    body = JSON.parse(request.rawBody.toString("utf8"));
  } catch {
    return { ok: false, error: apiError("bad_request", "The request body is not valid JSON.") };
  }
  const parsed = parseChatRequest(body);
  if (!parsed.ok) return { ok: false, error: apiError("bad_request", parsed.message, parsed.param) };
  const sessionId = request.headers[SESSION_HEADER];
  if (sessionId === undefined) return { ok: true, chat: parsed.request };
  if (!SESSION_ID.test(sessionId)) {
    return { ok: false, error: apiError("bad_request", "X-Hermes-Session-Id must be 1–128 characters of letters, digits, `_`, `.` or `-`.") };
  }
  return { ok: true, chat: parsed.request, sessionId };
}

function inboundOf(chat: ChatRequest, chatId: string, messageId: string, timestamp: number): InboundMessage {
  return {
    platform: API_PLATFORM,
    chat: { id: chatId, type: "dm" },
    user: { id: chat.user ?? DEFAULT_API_USER },
    messageId,
    text: chat.prompt,
    attachments: [],
    mentionedBot: true,
    timestamp,
  };
}

function unauthorized(): ApiError {
  return apiError("unauthorized", "Incorrect API key provided: send `Authorization: Bearer <HERMES_API_SERVER_KEY>`.");
}

function asResponse(error: ApiError): { status: number; body: string; headers: Record<string, string> } {
  return { status: error.status, body: JSON.stringify(error.body), headers: { ...JSON_HEADERS, ...(error.status === 401 && { "www-authenticate": "Bearer" }), ...error.headers } };
}

function writeError(response: ServerResponse, error: ApiError): void {
  if (response.writableEnded || response.destroyed) return;
  // A stream already under way can only be cut short.
  if (response.headersSent) return void response.end();
  const { status, body, headers } = asResponse(error);
  response.writeHead(status, headers).end(body);
}
