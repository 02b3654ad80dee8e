import { GrammyError, HttpError } from "grammy";

/** What a failed Bot API call means for whoever made it. */
export type ApiFailure =
  /** 429: wait `retryAfterMs`, then try again. */
  | { kind: "rate-limited"; retryAfterMs: number; message: string }
  /** 409: another getUpdates consumer or a webhook holds the updates. */
  | { kind: "conflict"; message: string }
  /** 401/404 on a method: the token is wrong or revoked. */
  | { kind: "unauthorized"; message: string }
  /** Connection problems and server errors: try again later. */
  | { kind: "transient"; message: string }
  /** Any other answer: Telegram refused this request, and will refuse it again. */
  | { kind: "rejected"; message: string; migrateToChatId?: number };

/** Classifies an error thrown by a grammY API call. The messages never contain the token. */
export function describeApiFailure(error: unknown): ApiFailure {
  if (error instanceof GrammyError) {
    const message = `${error.error_code} ${error.description}`;
    if (error.error_code === 429) return { kind: "rate-limited", retryAfterMs: Math.max(0, error.parameters.retry_after ?? 1) * 1000, message };
    if (error.error_code === 409) return { kind: "conflict", message };
    if (error.error_code === 401 || error.error_code === 404) return { kind: "unauthorized", message };
    if (error.error_code >= 500) return { kind: "transient", message };
    const migrateTo = error.parameters.migrate_to_chat_id;
    return migrateTo === undefined ? { kind: "rejected", message } : { kind: "rejected", message, migrateToChatId: migrateTo };
  }
  // The underlying fetch error quotes the request URL, and with it the token.
  if (error instanceof HttpError) return { kind: "transient", message: `network error: ${withoutUrls(errorText(error.error)) || error.message}` };
  return { kind: "rejected", message: errorText(error) };
}

function withoutUrls(text: string): string {
  return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, "<url>");
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
