import { cappedBackoffMs } from "@hermes/gateway";

/** Pauses between fresh logins after discord.js gave up on a connection. */
export interface ReconnectBackoff {
  /** The pause after the first failure; it doubles with each further one. */
  firstDelayMs: number;
  /** The longest pause, and the pause after a failure that looks permanent. */
  maxDelayMs: number;
}

export const DEFAULT_RECONNECT_BACKOFF: ReconnectBackoff = { firstDelayMs: 1_000, maxDelayMs: 60_000 };

/**
 * The pause before the next login after `failures` failures in a row: exponential up to the cap, then half fixed and
 * half random, so many gateways that lost Discord at the same moment do not all come back in the same second. A
 * failure that looks permanent waits the cap at once: hammering Discord with a rejected token risks a ban, and an
 * operator fixing the portal setting is still picked up within a minute.
 */
export function reconnectDelayMs(failures: number, permanent: boolean, backoff: ReconnectBackoff, random: () => number = Math.random): number {
  const firstMs = permanent ? backoff.maxDelayMs : backoff.firstDelayMs;
  return cappedBackoffMs(failures, { firstMs, maxMs: backoff.maxDelayMs, jitter: "half-random" }, random);
}
