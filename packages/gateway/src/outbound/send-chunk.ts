import type { Logger } from "@hermes/agent";
import type { OutboundMessage, OutboundTarget, PlatformAdapter, SendResult } from "../core/adapter.js";

export interface RetryPolicy {
  /** Sends per chunk while the platform keeps failing with retryable (connection, rate-limit) errors. */
  maxAttempts: number;
  sleep: (ms: number) => Promise<void>;
  /** In [0, 1): spreads retries of many senders apart. */
  random: () => number;
}

const BASE_DELAY_MS = 500;
const MAX_BACKOFF_MS = 10_000;
// A platform may ask for long pauses; past this the flush would hold every other delivery hostage.
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

function formatted(adapter: PlatformAdapter, chunk: string, logger: Logger): OutboundMessage {
  if (!adapter.formatMarkdown) return { text: chunk, format: "markdown" };
  try {
    return { text: adapter.formatMarkdown(chunk), format: "markdown" };
  } catch (error) {
    logger.warn("markdown formatting failed; sending plain text", { platform: adapter.platform, error });
    return { text: chunk, format: "plain" };
  }
}

/**
 * Sends one chunk: formatted first; a rejection of the formatted text is retried once as the plain chunk (bad markup
 * is the usual cause); retryable failures are retried after a pause, up to `maxAttempts` sends.
 */
export async function sendChunk(
  adapter: PlatformAdapter,
  target: OutboundTarget,
  chunk: string,
  policy: RetryPolicy,
  logger: Logger,
): Promise<SendResult> {
  let message = formatted(adapter, chunk, logger);
  let retryableFailures = 0;
  for (;;) {
    const result = await callSend(adapter, target, message);
    if (result.ok) return result;
    if (!result.retryable) {
      if (message.format === "plain") return result;
      logger.warn("platform rejected formatted text; retrying as plain text", { platform: adapter.platform, error: result.error });
      message = { text: chunk, format: "plain" };
      continue;
    }
    retryableFailures += 1;
    if (retryableFailures >= policy.maxAttempts) return result;
    const delayMs = retryDelayMs(retryableFailures - 1, result.retryAfterMs, policy.random);
    logger.debug("send failed; retrying", { platform: adapter.platform, error: result.error, delayMs, attempt: retryableFailures });
    await policy.sleep(delayMs);
  }
}
