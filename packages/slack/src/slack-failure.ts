import { isRecord } from "./slack-events.js";
import { platformErrorCode } from "./web-api-failure.js";

/** Why a connection attempt failed, in words for operators (never a secret), and how long Slack asked us to wait. */
export interface ConnectionFailure {
  cause: string;
  retryAfterMs?: number;
}

// Slack's answers meaning the token itself is refused (revoked, wrong, app uninstalled).
const TOKEN_REFUSALS: ReadonlySet<string> = new Set(["invalid_auth", "not_authed", "account_inactive", "token_revoked", "token_expired", "user_removed_from_team", "team_disabled", "not_allowed_token_type"]);

/**
 * Describes an error of a Web API call made to connect (auth.test with the bot token, apps.connections.open with the
 * app token): refused token, unreachable Slack, HTTP error, rate limit, or another refusal.
 */
export function connectionFailure(error: unknown, call: { method: string; token: "SLACK_BOT_TOKEN" | "SLACK_APP_TOKEN" }): ConnectionFailure {
  const code = isRecord(error) && typeof error.code === "string" ? error.code : undefined;
  switch (code) {
    case "slack_webapi_platform_error": {
      const apiError = platformErrorCode(error) ?? "unknown_error";
      return { cause: TOKEN_REFUSALS.has(apiError) ? `Slack refused ${call.token} (${apiError})` : `Slack answered ${call.method} with ${apiError}` };
    }
    case "slack_webapi_request_error":
      return { cause: `cannot reach Slack: ${innermostMessage(error)}` };
    case "slack_webapi_http_error": {
      const status = isRecord(error) && typeof error.statusCode === "number" ? error.statusCode : 0;
      return { cause: `Slack answered HTTP ${status} to ${call.method}` };
    }
    case "slack_webapi_rate_limited_error": {
      const seconds = isRecord(error) && typeof error.retryAfter === "number" ? error.retryAfter : undefined;
      const cause = `rate limited by Slack (${call.method})`;
      return seconds === undefined ? { cause } : { cause, retryAfterMs: seconds * 1000 };
    }
    default:
      return { cause: `${call.method} failed: ${innermostMessage(error)}` };
  }
}

/** Slack's refusal of the bot token (SLACK_BOT_TOKEN) in a failed Web API call, or undefined for any other failure. */
export function botTokenRefusal(error: unknown): ConnectionFailure | undefined {
  const apiError = platformErrorCode(error);
  return apiError !== undefined && TOKEN_REFUSALS.has(apiError) ? { cause: `Slack refused SLACK_BOT_TOKEN (${apiError})` } : undefined;
}

/** The message of the deepest `cause`: "connect ECONNREFUSED 127.0.0.1:9" rather than "fetch failed". */
export function innermostMessage(error: unknown): string {
  let message = error instanceof Error ? error.message : String(error);
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error && current.cause instanceof Error; depth += 1) {
    current = current.cause;
    const code = isRecord(current) && typeof current.code === "string" ? current.code : undefined;
    // An AggregateError (several addresses tried) has an empty message but names the error code.
    if (current instanceof Error && (current.message || code)) message = current.message || (code ?? message);
  }
  return message;
}
