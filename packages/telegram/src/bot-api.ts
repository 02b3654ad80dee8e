import type { TelegramSettings } from "@hermes/gateway";
import { Api } from "grammy";
import type { BotCommand, BotCommandScope, LanguageCode, Message, Update, UserFromGetMe } from "grammy/types";
import type { EditMessageOptions, SendMessageOptions } from "./outbound-params.js";
import type { UpdateKind } from "./update-poller.js";

/** The Bot API methods the adapter uses, with the platform's own AbortSignal. */
export interface BotApi {
  getMe(signal?: AbortSignal): Promise<UserFromGetMe>;
  getUpdates(options: { offset?: number; limit?: number; timeout?: number; allowed_updates?: readonly UpdateKind[] }, signal?: AbortSignal): Promise<Update[]>;
  setMyCommands(commands: readonly BotCommand[], options: { scope?: BotCommandScope; language_code?: LanguageCode }, signal?: AbortSignal): Promise<void>;
  setWebhook(url: string, options: { secret_token: string; allowed_updates: readonly UpdateKind[] }, signal?: AbortSignal): Promise<void>;
  deleteWebhook(signal?: AbortSignal): Promise<void>;
  sendMessage(chatId: number | string, text: string, options: SendMessageOptions): Promise<Message>;
  editMessageText(chatId: number | string, messageId: number, text: string, options: EditMessageOptions): Promise<void>;
  /** Acknowledges a button press without a notification, so the client stops showing progress on the button. */
  answerCallbackQuery(callbackQueryId: string): Promise<void>;
  sendChatAction(chatId: number | string, options: { message_thread_id?: number }): Promise<void>;
  getFile(fileId: string, signal?: AbortSignal): Promise<{ file_path?: string; file_size?: number }>;
  /** The download URL of a file (it holds the token: never log it). */
  fileUrl(filePath: string): string;
}

// grammY's Node typings name the abort-controller polyfill's signal type; at run time grammY only needs
// addEventListener, which the platform's AbortSignal has.
type GrammySignal = Parameters<Api["getMe"]>[0];
const asGrammySignal = (signal: AbortSignal | undefined): GrammySignal => signal as unknown as GrammySignal;

// Above the long-poll timeout, so a held getUpdates is never cut off by the client.
const CLIENT_TIMEOUT_SECONDS = 60;

/** grammY's API client pointed at the configured Bot API server (Telegram's, a self-hosted one, or a test fake). */
export function createBotApi(settings: Pick<TelegramSettings, "token" | "apiRoot">): BotApi {
  const api = new Api(settings.token, { apiRoot: settings.apiRoot, timeoutSeconds: CLIENT_TIMEOUT_SECONDS });
  return {
    getMe: (signal) => api.getMe(asGrammySignal(signal)),
    getUpdates: (options, signal) => api.getUpdates(options, asGrammySignal(signal)),
    setMyCommands: async (commands, options, signal) => {
      await api.setMyCommands(commands, options, asGrammySignal(signal));
    },
    setWebhook: async (url, options, signal) => {
      await api.setWebhook(url, { ...options, drop_pending_updates: false }, asGrammySignal(signal));
    },
    deleteWebhook: async (signal) => {
      await api.deleteWebhook({ drop_pending_updates: false }, asGrammySignal(signal));
    },
    sendMessage: (chatId, text, options) => api.sendMessage(chatId, text, options),
    editMessageText: async (chatId, messageId, text, options) => {
      await api.editMessageText(chatId, messageId, text, options);
    },
    answerCallbackQuery: async (callbackQueryId) => {
      await api.answerCallbackQuery(callbackQueryId);
    },
    sendChatAction: async (chatId, options) => {
      await api.sendChatAction(chatId, "typing", options);
    },
    getFile: (fileId, signal) => api.getFile(fileId, asGrammySignal(signal)),
    fileUrl: (filePath) => `${settings.apiRoot}/file/bot${settings.token}/${filePath}`,
  };
}
