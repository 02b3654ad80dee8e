import type { PacingRules } from "@hermes/gateway";

/**
 * Telegram's published send limits (Bots FAQ): about one message a second per chat, short bursts allowed (3 here);
 * at most 20 a minute in a group, where the burst of 20 is the minute's allowance, as the per-minute window most
 * Telegram bot throttlers keep; 30 a second for the whole bot. Group and channel ids are negative.
 */
export const TELEGRAM_PACING: PacingRules = {
  perChat: { ratePerSecond: 1, burst: 3 },
  perGroup: { ratePerSecond: 20 / 60, burst: 20 },
  global: { ratePerSecond: 30, burst: 30 },
  isGroup: (chatId) => chatId.trim().startsWith("-"),
};
