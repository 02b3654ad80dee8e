import { DiscordAPIError, HTTPError } from "discord.js";
import type { SendResult } from "@hermes/gateway";

type Failure = Extract<SendResult, { ok: false }>;

const CONNECTION_ERROR_NAMES = new Set(["AbortError", "TimeoutError", "ConnectTimeoutError", "SocketError", "HeadersTimeoutError", "BodyTimeoutError"]);

/**
 * What a failed REST call means for delivery: Discord rejecting the message (4xx) is final and says why; a server
 * error or a broken connection may succeed later. Rate limits never get here — discord.js's REST queue waits them out.
 */
export function sendFailure(error: unknown): Failure {
  if (error instanceof DiscordAPIError) {
    if (error.status >= 500) return { ok: false, retryable: true, error: `Discord answered HTTP ${error.status}: ${error.message}` };
    const code = typeof error.code === "number" && error.code !== 0 ? `, code ${error.code}` : "";
    return { ok: false, retryable: false, error: `Discord rejected the message (HTTP ${error.status}${code}): ${error.message}` };
  }
  if (error instanceof HTTPError) return { ok: false, retryable: true, error: `Discord answered HTTP ${error.status} ${error.message}` };
  if (isConnectionError(error)) return { ok: false, retryable: true, error: `connection to Discord failed: ${describe(error)}` };
  return { ok: false, retryable: false, error: describe(error) };
}

function isConnectionError(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 4; current = current.cause, depth += 1) {
    if (CONNECTION_ERROR_NAMES.has(current.name)) return true;
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && (/^E[A-Z]+$/.test(code) || code.startsWith("UND_ERR_"))) return true;
    if (current.message === "fetch failed") return true;
  }
  return false;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : "";
  return `${error.message}${cause}`;
}
