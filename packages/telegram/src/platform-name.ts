export const TELEGRAM_PLATFORM = "telegram";
