import type { SendResult } from "@hermes/gateway";
import { isRecord } from "./slack-events.js";

export type SendFailure = Extract<SendResult, { ok: false }>;

// Slack's own "try again later" answers (HTTP 200 with ok:false).
const TRANSIENT_API_ERRORS: ReadonlySet<string> = new Set(["ratelimited", "service_unavailable", "fatal_error", "internal_error", "request_timeout"]);

/**
 * Classifies an error thrown by Bolt's WebClient: connection problems, rate limits and server errors may be retried;
 * Slack's refusals (channel_not_found, msg_too_long, invalid_auth, …) may not.
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
      return { ok: false, retryable: true, error: `could not reach Slack: ${message}` };
    case "slack_webapi_http_error": {
      const status = isRecord(error) && typeof error.statusCode === "number" ? error.statusCode : 0;
      return { ok: false, retryable: status >= 500 || status === 408, error: `Slack answered HTTP ${status}` };
    }
    case "slack_webapi_platform_error": {
      const apiError = platformErrorCode(error) ?? "unknown_error";
      return { ok: false, retryable: TRANSIENT_API_ERRORS.has(apiError), error: `Slack refused the message: ${apiError}` };
    }
    default:
      return { ok: false, retryable: false, error: message };
  }
}

/** The `error` field of a Web API answer with ok:false (e.g. "already_reacted"). */
export function platformErrorCode(error: unknown): string | undefined {
  if (!isRecord(error) || error.code !== "slack_webapi_platform_error" || !isRecord(error.data)) return undefined;
  return typeof error.data.error === "string" ? error.data.error : undefined;
}
