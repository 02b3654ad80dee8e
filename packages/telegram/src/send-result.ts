import type { SendResult } from "@hermes/gateway";
import type { ApiFailure } from "./api-errors.js";

/**
 * What the gateway's delivery makes of a failed send: rate limits (with Telegram's retry_after) and connection or
 * server errors are retried (flagged `ambiguous` when the message may exist already); everything else is a rejection, which for formatted text means "send it as plain text".
 */
export function failedSend(failure: ApiFailure): Extract<SendResult, { ok: false }> {
  switch (failure.kind) {
    case "rate-limited":
      return { ok: false, retryable: true, retryAfterMs: failure.retryAfterMs, error: failure.message };
    case "transient":
      // Telegram has no idempotency key: the gateway's resend after an ambiguous failure may show the part twice,
      // which beats losing it (the adapter's `deliveryGuarantee` is "at-least-once").
      return failure.ambiguous ? { ok: false, retryable: true, ambiguous: true, error: failure.message } : { ok: false, retryable: true, error: failure.message };
    default:
      return { ok: false, retryable: false, error: failure.message };
  }
}
