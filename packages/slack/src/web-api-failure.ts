import type { SendResult } from "@hermes/gateway";
import { isRecord } from "./slack-events.js";

export type SendFailure = Extract<SendResult, { ok: false }>;

// Slack's own "try again later" answers (HTTP 200 with ok:false).
const TRANSIENT_API_ERRORS: ReadonlySet<string> = new Set(["ratelimited", "service_unavailable", "fatal_error", "internal_error", "request_timeout"]);

// Slack documents that "some aspect of the operation" may have succeeded before these were raised.
const MAYBE_DONE_API_ERRORS: ReadonlySet<string> = new Set(["fatal_error", "internal_error"]);

// Failures to connect at all: the request never left, so resending it cannot post the message twice.
const NOT_SENT_CODES: ReadonlySet<string> = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ENETUNREACH", "EHOSTUNREACH", "ENETDOWN", "EHOSTDOWN", "UND_ERR_CONNECT_TIMEOUT"]);

const AMBIGUOUS = { ambiguous: true } as const;

/**
 * Classifies an error thrown by Bolt's WebClient: connection problems, rate limits and server errors may be retried;
 * Slack's refusals (channel_not_found, msg_too_long, invalid_auth, …) may not. A timeout, a connection lost while
 * waiting for the answer, or a server error is `ambiguous`: the message may have been posted. Slack's Web API has no
 * idempotency key, so the gateway's resend may then show it twice (the adapter is "at-least-once").
 */
export function webApiFailure(error: unknown): SendFailure {
  const code = isRecord(error) && typeof error.code === "string" ? error.code : undefined;
  const message = error instanceof Error ? error.message : String(error);
  switch (code) {
    case "slack_webapi_rate_limited_error": {
      const seconds = isRecord(error) && typeof error.retryAfter === "number" ? error.retryAfter : undefined;
      return seconds === undefined
        ? { ok: false, retryable: true, error: "rate limited by Slack" }
        : { ok: false, retryable: true, error: "rate limited by Slack", retryAfterMs: seconds * 1000 };
    }
    case "slack_webapi_request_error":
      return { ok: false, retryable: true, ...(neverLeft(error) ? {} : AMBIGUOUS), error: `could not reach Slack: ${message}` };
    case "slack_webapi_http_error": {
      const status = isRecord(error) && typeof error.statusCode === "number" ? error.statusCode : 0;
      return { ok: false, retryable: status >= 500 || status === 408, ...(maybeHandled(status) ? AMBIGUOUS : {}), error: `Slack answered HTTP ${status}` };
    }
    case "slack_webapi_platform_error": {
      const apiError = platformErrorCode(error) ?? "unknown_error";
      const maybeDone = MAYBE_DONE_API_ERRORS.has(apiError) ? AMBIGUOUS : {};
      return { ok: false, retryable: TRANSIENT_API_ERRORS.has(apiError), ...maybeDone, error: `Slack refused the message: ${apiError}` };
    }
    default:
      return { ok: false, retryable: false, error: message };
  }
}

/** A server error other than 503 (which says the request was turned away unhandled) may come after the post. */
function maybeHandled(status: number): boolean {
  return status >= 500 && status !== 503;
}

/** True when the connection to Slack was never made (refused, unknown host): nothing can have been posted. */
function neverLeft(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && isRecord(current); depth += 1) {
    if (typeof current.code === "string" && NOT_SENT_CODES.has(current.code)) return true;
    if (current.name === "ConnectTimeoutError") return true;
    // Several addresses tried at once (IPv4 and IPv6) come as an AggregateError of the same failures.
    if (current instanceof AggregateError && current.errors.length > 0 && current.errors.every((inner) => neverLeft(inner))) return true;
    current = current.cause;
  }
  return false;
}

/** The `error` field of a Web API answer with ok:false (e.g. "already_reacted"). */
export function platformErrorCode(error: unknown): string | undefined {
  if (!isRecord(error) || error.code !== "slack_webapi_platform_error" || !isRecord(error.data)) return undefined;
  return typeof error.data.error === "string" ? error.data.error : undefined;
}
