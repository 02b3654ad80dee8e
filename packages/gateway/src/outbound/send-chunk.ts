import type { Logger } from "@hermes/agent";
import type { OutboundButton, OutboundMessage, OutboundTarget, PlatformAdapter, SendResult } from "../core/adapter.js";
import type { SendPacer } from "./pacer-types.js";

export interface RetryPolicy {
  /** Sends per chunk while the platform keeps failing with retryable (connection, rate-limit) errors. */
  maxAttempts: number;
  sleep: (ms: number) => Promise<void>;
  /** In [0, 1): spreads retries of many senders apart. */
  random: () => number;
}

/** What every send of one part carries: its pacing and the key that stays the same across its attempts. */
export interface PartSend {
  pacer: SendPacer;
  /** `d<deliveryId>p<part>`: the platform may deduplicate by it. */
  idempotencyKey: string;
  /** Aborts a wait for the pacer (the service is stopping). */
  signal?: AbortSignal;
  /** Shown under this part (a delivery's buttons go with its last part). */
  buttons?: OutboundButton[];
}

const BASE_DELAY_MS = 500;
const MAX_BACKOFF_MS = 10_000;
// Only for callers that wait in place; the delivery service defers the row instead and never waits out a long pause.
const MAX_RETRY_AFTER_MS = 60_000;

/** How long to wait before retry number `retry` (0 for the first): the platform's wish, else exponential with jitter. */
export function retryDelayMs(retry: number, retryAfterMs: number | undefined, random: () => number): number {
  if (retryAfterMs !== undefined && Number.isFinite(retryAfterMs) && retryAfterMs >= 0) {
    return Math.min(retryAfterMs, MAX_RETRY_AFTER_MS);
  }
  const backoff = Math.min(MAX_BACKOFF_MS, BASE_DELAY_MS * 2 ** retry);
  return Math.min(MAX_BACKOFF_MS, Math.round(backoff * (0.75 + 0.5 * random())));
}

/** Calls `adapter.send`, turning a throw (an adapter bug) into a non-retryable failure. */
export async function callSend(adapter: PlatformAdapter, target: OutboundTarget, message: OutboundMessage): Promise<SendResult> {
  try {
    return await adapter.send(target, message);
  } catch (error) {
    return { ok: false, retryable: false, error: `adapter threw: ${error instanceof Error ? error.message : String(error)}` };
  }
}

function formatted(adapter: PlatformAdapter, chunk: string, logger: Logger): Pick<OutboundMessage, "text" | "format"> {
  if (!adapter.formatMarkdown) return { text: chunk, format: "markdown" };
  try {
    return { text: adapter.formatMarkdown(chunk), format: "markdown" };
  } catch (error) {
    logger.warn("markdown formatting failed; sending plain text", { platform: adapter.platform, error });
    return { text: chunk, format: "plain" };
  }
}

/** Waits for the pacer, then sends; a wait cut short (the service stops) is a retryable failure that sent nothing. */
export async function pacedSend(adapter: PlatformAdapter, target: OutboundTarget, message: OutboundMessage, part: Omit<PartSend, "idempotencyKey">): Promise<SendResult> {
  try {
    await part.pacer.acquire(adapter.platform, target.chatId, part.signal);
  } catch (error) {
    return { ok: false, retryable: true, error: `not sent: ${error instanceof Error ? error.message : String(error)}` };
  }
  return callSend(adapter, target, message);
}

/**
 * Sends one chunk: formatted first; a rejection of the formatted text is retried once as the plain chunk (bad markup
 * is the usual cause); retryable and ambiguous failures are retried after a pause, up to `maxAttempts` sends. A rate
 * limit with a retry-after comes back at once: the caller defers the whole delivery rather than hold a sender.
 */
export async function sendChunk(
  adapter: PlatformAdapter,
  target: OutboundTarget,
  chunk: string,
  policy: RetryPolicy,
  part: PartSend,
  logger: Logger,
): Promise<SendResult> {
  const buttons = part.buttons !== undefined && part.buttons.length > 0 ? { buttons: part.buttons } : {};
  let message: OutboundMessage = { ...formatted(adapter, chunk, logger), idempotencyKey: part.idempotencyKey, ...buttons };
  let retryableFailures = 0;
  for (;;) {
    const result = await pacedSend(adapter, target, message, part);
    if (result.ok) return result;
    if (part.signal?.aborted) return result;
    if (result.ambiguous && adapter.deliveryGuarantee !== "exactly-once") {
      logger.warn("a send may have reached the platform; sending it again may show this part twice", { platform: adapter.platform, idempotencyKey: part.idempotencyKey, error: result.error });
    }
    if (!result.retryable && !result.ambiguous) {
      if (message.format === "plain") return result;
      logger.warn("platform rejected formatted text; retrying as plain text", { platform: adapter.platform, error: result.error });
      message = { text: chunk, format: "plain", idempotencyKey: part.idempotencyKey, ...buttons };
      continue;
    }
    if (result.retryAfterMs !== undefined) return { ...result, retryable: true };
    retryableFailures += 1;
    if (retryableFailures >= policy.maxAttempts) return { ...result, retryable: true };
    const delayMs = retryDelayMs(retryableFailures - 1, result.retryAfterMs, policy.random);
    logger.debug("send failed; retrying", { platform: adapter.platform, error: result.error, delayMs, attempt: retryableFailures });
    await policy.sleep(delayMs);
  }
}
