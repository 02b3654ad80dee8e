import type { ApiFailure } from "./api-errors.js";

/**
 * What an operator reads in /readyz and the logs while the adapter retries: what Telegram answered and what to do
 * about it. Built from `describeApiFailure` messages, which never hold the token.
 */
export function retryCause(failure: ApiFailure): string {
  switch (failure.kind) {
    case "unauthorized":
      return `${failure.message}: Telegram refused the bot token; check TELEGRAM_BOT_TOKEN`;
    case "conflict":
      return `409 Conflict: another process is polling this bot token or a webhook is set; stop the other instance or delete its webhook (Telegram: ${failure.message.replace(/^409 (Conflict: )?/, "")})`;
    case "rate-limited":
      return `${failure.message}: Telegram asked the bot to slow down`;
    case "transient":
      return `cannot reach Telegram: ${failure.message}`;
    case "rejected":
      return `Telegram refused the request: ${failure.message}`;
  }
}
