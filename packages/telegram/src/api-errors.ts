import { GrammyError, HttpError } from "grammy";

/** What a failed Bot API call means for whoever made it. */
export type ApiFailure =
  /** 429: wait `retryAfterMs`, then try again. */
  | { kind: "rate-limited"; retryAfterMs: number; message: string }
  /** 409: another getUpdates consumer or a webhook holds the updates. */
  | { kind: "conflict"; message: string }
  /** 401/404 on a method: the token is wrong or revoked. */
  | { kind: "unauthorized"; message: string }
  /**
   * Connection problems and server errors: try again later. `ambiguous`: the request may have reached Telegram (a
   * timeout, a connection lost while waiting, a server error), so a sent message may exist although the call failed.
   */
  | { kind: "transient"; message: string; ambiguous?: true }
  /** Any other answer: Telegram refused this request, and will refuse it again. */
  | { kind: "rejected"; message: string; migrateToChatId?: number };

/** Classifies an error thrown by a grammY API call. The messages never contain the token. */
export function describeApiFailure(error: unknown): ApiFailure {
  if (error instanceof GrammyError) {
    const message = `${error.error_code} ${error.description}`;
    if (error.error_code === 429) return { kind: "rate-limited", retryAfterMs: Math.max(0, error.parameters.retry_after ?? 1) * 1000, message };
    if (error.error_code === 409) return { kind: "conflict", message };
    if (error.error_code === 401 || error.error_code === 404) return { kind: "unauthorized", message };
    // 503 says the request was turned away unhandled; other server errors may come after the message was sent.
    if (error.error_code >= 500) return error.error_code === 503 ? { kind: "transient", message } : { kind: "transient", message, ambiguous: true };
    const migrateTo = error.parameters.migrate_to_chat_id;
    return migrateTo === undefined ? { kind: "rejected", message } : { kind: "rejected", message, migrateToChatId: migrateTo };
  }
  // The underlying fetch error quotes the request URL, and with it the token.
  if (error instanceof HttpError) {
    const message = `network error: ${withoutUrls(errorText(error.error)) || error.message}`;
    return neverLeft(error.error) ? { kind: "transient", message } : { kind: "transient", message, ambiguous: true };
  }
  // grammY's own timeout (`timeoutSeconds`) is a plain Error, thrown once the request was on its way.
  if (error instanceof Error && GRAMMY_TIMEOUT.test(error.message)) return { kind: "transient", message: error.message, ambiguous: true };
  return { kind: "rejected", message: errorText(error) };
}

const GRAMMY_TIMEOUT = /^Request to '\w+' timed out after \d+ seconds$/;

/** Failures to connect at all (node-fetch names the system error in `code` and in its message). */
const NOT_SENT = /\b(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ENETUNREACH|EHOSTUNREACH|ENETDOWN|EHOSTDOWN)\b/;

/** True when the request cannot have reached Telegram, so resending it cannot show a message twice. */
function neverLeft(cause: unknown): boolean {
  const code = cause instanceof Error ? (cause as { code?: unknown }).code : undefined;
  return (typeof code === "string" && NOT_SENT.test(code)) || NOT_SENT.test(errorText(cause));
}

function withoutUrls(text: string): string {
  return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, "<url>");
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
