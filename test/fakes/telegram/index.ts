export { startFakeTelegram, type FakeTelegram, type FakeTelegramOptions } from "./fake-telegram.js";
export type { ApiError, CallbackAnswer, ChatAction, CommandList, MessageVersion, RecordedCall, SentMessage } from "./bot-api-state.js";
export type { Presser } from "./button-press.js";
export { ADA, channelChat, entitiesFor, forumChat, groupChat, privateChat, type FakeUpload, type FakeUser, type UserMessageOptions } from "./message-builder.js";
export { parseTelegramHtml, type ParsedHtml } from "./telegram-html.js";
export { PACED_METHODS, TELEGRAM_PUBLISHED_LIMITS, type RateLimitedCall, type SendRate, type TelegramRateLimits } from "./flood-control.js";
