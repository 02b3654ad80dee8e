export { createTelegramAdapter, TelegramAdapter } from "./telegram-adapter.js";
export { DEFAULT_MAX_ATTACHMENT_BYTES, type TelegramAdapterDeps } from "./adapter-deps.js";
export { markdownToTelegramHtml } from "./markdown-to-html.js";
export { normalizeUpdate, TELEGRAM_PLATFORM, type NormalizedUpdate } from "./normalize-update.js";
export type { BotIdentity } from "./bot-identity.js";
