import type { AbortableSleep } from "@hermes/gateway";

export interface ReceiveRetryOptions {
  sleep: AbortableSleep;
  /** Aborted when the adapter stops: no more retries. */
  signal: AbortSignal;
  /** Stops retrying once this much time was spent waiting between attempts (default 60 s). */
  giveUpAfterMs?: number;
  /** Told about each failed attempt that will be retried, before the pause. */
  onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
}

export type ReceiveOutcome =
  | { ok: true; attempts: number }
  | { ok: false; attempts: number; reason: "stopping" | "gave up"; error: unknown };

const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;
const DEFAULT_GIVE_UP_AFTER_MS = 60_000;

/**
 * Hands a message to the gateway until it is saved. Discord never delivers a message twice, so a store that is briefly
 * unavailable (a locked database, a full disk being cleaned up) must be waited out here or the message is lost.
 */
export async function receiveWithRetry(receive: () => Promise<void>, options: ReceiveRetryOptions): Promise<ReceiveOutcome> {
  const giveUpAfterMs = options.giveUpAfterMs ?? DEFAULT_GIVE_UP_AFTER_MS;
  let waitedMs = 0;
  for (let attempts = 1; ; attempts += 1) {
    try {
      await receive();
      return { ok: true, attempts };
    } catch (error) {
      if (options.signal.aborted) return { ok: false, attempts, reason: "stopping", error };
      if (waitedMs >= giveUpAfterMs) return { ok: false, attempts, reason: "gave up", error };
      const delayMs = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** (attempts - 1));
      options.onRetry?.(error, attempts, delayMs);
      await options.sleep(delayMs, options.signal);
      waitedMs += delayMs;
      if (options.signal.aborted) return { ok: false, attempts, reason: "stopping", error };
    }
  }
}
