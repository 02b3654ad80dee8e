/**
 * Paces sends to each platform's published limits (token buckets per chat, per group and per bot). Replies, busy
 * acknowledgements and typing actions share the same buckets.
 */
export interface SendPacer {
  /** Waits until a message to this chat is within the platform's limits and takes its tokens; rejects when `signal` aborts. */
  acquire(platform: string, chatId: string, signal?: AbortSignal): Promise<void>;
  /** Best-effort sends (typing): takes the tokens and returns true only when available right now. */
  tryAcquire(platform: string, chatId: string): boolean;
  /** The platform asked us to wait (a 429's retry_after): sends to this chat wait at least `ms`. */
  pause(platform: string, chatId: string, ms: number): void;
}

/** No pacing (tests, platforms that pace themselves). */
export const UNPACED: SendPacer = {
  acquire: async () => undefined,
  tryAcquire: () => true,
  pause: () => undefined,
};
