export { startFakeTelegram, type FakeTelegram, type FakeTelegramOptions } from "./fake-telegram.js";
export type { ApiError, ChatAction, RecordedCall, SentMessage } from "./bot-api-state.js";
export { ADA, channelChat, entitiesFor, forumChat, groupChat, privateChat, type FakeUpload, type FakeUser, type UserMessageOptions } from "./message-builder.js";
export { parseTelegramHtml, type ParsedHtml } from "./telegram-html.js";
export { PACED_METHODS, TELEGRAM_PUBLISHED_LIMITS, type RateLimitedCall, type SendRate, type TelegramRateLimits } from "./flood-control.js";
