import { DiscordAPIError, HTTPError, RateLimitError } from "discord.js";
import type { SendResult } from "@hermes/gateway";

type Failure = Extract<SendResult, { ok: false }>;

const CONNECTION_ERROR_NAMES = new Set(["AbortError", "TimeoutError", "ConnectTimeoutError", "SocketError", "HeadersTimeoutError", "BodyTimeoutError"]);

/** Failures to reach Discord at all: the request never left, so a resend cannot make a second message. */
const NOT_SENT_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ENETUNREACH", "EHOSTUNREACH", "ENETDOWN", "EHOSTDOWN", "UND_ERR_CONNECT_TIMEOUT"]);

/**
 * What a failed REST call means for delivery: Discord rejecting the message (4xx) is final and says why; a server
 * error or a broken connection may succeed later. Rate limits reach here only from a REST client that refuses to wait
 * (edits, which a newer edit soon replaces); sends are held in discord.js's REST queue until the limit passes.
 * A timeout, a connection dropped while waiting, or a server error after the request left is `ambiguous`: the
 * message may exist. The resend is still safe because the nonce makes Discord return that message instead.
 */
export function sendFailure(error: unknown): Failure {
  if (error instanceof RateLimitError) {
    return { ok: false, retryable: true, retryAfterMs: Math.max(0, Math.ceil(error.retryAfter)), error: `Discord rate limit on ${error.route}; retry in ${error.retryAfter} ms` };
  }
  if (error instanceof DiscordAPIError) {
    if (error.status >= 500) return { ok: false, retryable: true, ...ambiguousIf(maybeHandled(error.status)), error: `Discord answered HTTP ${error.status}: ${error.message}` };
    const code = typeof error.code === "number" && error.code !== 0 ? `, code ${error.code}` : "";
    return { ok: false, retryable: false, error: `Discord rejected the message (HTTP ${error.status}${code}): ${error.message}` };
  }
  if (error instanceof HTTPError) {
    return { ok: false, retryable: true, ...ambiguousIf(maybeHandled(error.status)), error: `Discord answered HTTP ${error.status} ${error.message}` };
  }
  if (isConnectionError(error)) {
    return { ok: false, retryable: true, ...ambiguousIf(!neverLeft(error)), error: `connection to Discord failed: ${describe(error)}` };
  }
  return { ok: false, retryable: false, error: describe(error) };
}

function ambiguousIf(maybeSent: boolean): { ambiguous?: true } {
  return maybeSent ? { ambiguous: true } : {};
}

/** A server error other than 503 (which says the request was turned away unhandled) may come after the post. */
function maybeHandled(status: number): boolean {
  return status >= 500 && status !== 503;
}

function isConnectionError(error: unknown): boolean {
  return causes(error).some((current) => {
    if (CONNECTION_ERROR_NAMES.has(current.name)) return true;
    const code = codeOf(current);
    return (code !== undefined && (/^E[A-Z]+$/.test(code) || code.startsWith("UND_ERR_"))) || current.message === "fetch failed";
  });
}

function neverLeft(error: unknown): boolean {
  return causes(error).some((current) => current.name === "ConnectTimeoutError" || NOT_SENT_CODES.has(codeOf(current) ?? ""));
}

function causes(error: unknown): Error[] {
  const chain: Error[] = [];
  for (let current: unknown = error; current instanceof Error && chain.length < 4; current = current.cause) chain.push(current);
  return chain;
}

function codeOf(error: Error): string | undefined {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : undefined;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : "";
  return `${error.message}${cause}`;
}
