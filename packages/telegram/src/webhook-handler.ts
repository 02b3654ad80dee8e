import { createHash, timingSafeEqual } from "node:crypto";
import type { Logger } from "@hermes/agent";
import type { HttpHandler } from "@hermes/gateway";
import type { Update } from "grammy/types";

export const SECRET_HEADER = "x-telegram-bot-api-secret-token";

export interface WebhookHandlerOptions {
  secret: string;
  /** Undefined while the adapter cannot take updates yet (or any more): Telegram is told to come back later. */
  handler: () => ((update: Update, signal: AbortSignal) => Promise<void>) | undefined;
  logger: Logger;
}

/** The gateway route for a webhook URL: its path, which a reverse proxy is expected to keep. */
export function webhookRoutePath(url: string): string {
  return new URL(url).pathname || "/";
}

/**
 * Receives updates Telegram POSTs to the webhook. Only requests carrying the secret token set with setWebhook are
 * accepted; the answer is 200 once the update is persisted, and an error status otherwise so Telegram sends it again.
 */
export function createWebhookHandler(options: WebhookHandlerOptions): HttpHandler {
  return async (request) => {
    const given = request.headers[SECRET_HEADER];
    if (given === undefined || given === "") return text(401, "missing secret token");
    if (!sameSecret(given, options.secret)) {
      options.logger.warn("Telegram webhook request with a wrong secret token refused");
      return text(403, "wrong secret token");
    }
    const update = parseUpdate(request.rawBody);
    if (!update) return text(400, "not a Telegram update");
    const handle = options.handler();
    if (!handle) return text(503, "not ready");
    try {
      await handle(update, new AbortController().signal);
    } catch (error) {
      options.logger.error("could not hand a Telegram webhook update to the gateway; Telegram will send it again", {
        updateId: update.update_id,
        error: error instanceof Error ? error.message : String(error),
      });
      return text(500, "not persisted");
    }
    return text(200, "ok");
  };
}

/** Hashing first makes the comparison constant-time whatever the lengths. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string): Buffer => createHash("sha256").update(value, "utf8").digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function parseUpdate(body: Buffer): Update | undefined {
  try {
    const parsed: unknown = JSON.parse(body.toString("utf8"));
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
    const updateId = (parsed as { update_id?: unknown }).update_id;
    return typeof updateId === "number" && Number.isSafeInteger(updateId) ? (parsed as Update) : undefined;
  } catch {
    return undefined;
  }
}

function text(status: number, body: string): { status: number; body: string; headers: Record<string, string> } {
  return { status, body, headers: { "content-type": "text/plain; charset=utf-8" } };
}
