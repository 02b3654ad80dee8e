/** The most text Telegram shows in one message, in UTF-16 code units of the visible text. */
export const TELEGRAM_TEXT_LIMIT = 4096;
