import type { Message } from "grammy/types";
import { error, ok, optionalInt, type ApiAnswer, type Method, type Params } from "./api-answer.js";
import type { BotApiState, MessageVersion } from "./bot-api-state.js";
import { readInlineMarkup } from "./inline-markup.js";
import { readMessageText } from "./message-text.js";

/** Editing bot messages and answering button presses. */
export const EDIT_METHODS: Record<string, Method> = {
  editMessageText: (state, params) => editMessageText(state, params),
  answerCallbackQuery: (state, params) => {
    const callbackQueryId = String(params.callback_query_id ?? "");
    if (!state.openCallbackQueries.delete(callbackQueryId)) return error(400, "Bad Request: query is too old and response timeout expired or query ID is invalid");
    const answer: { callbackQueryId: string; text?: string; showAlert?: boolean } = { callbackQueryId };
    if (typeof params.text === "string") answer.text = params.text;
    if (params.show_alert === true || params.show_alert === "true") answer.showAlert = true;
    state.callbackAnswers.push(answer);
    return ok(true);
  },
};

function editMessageText(state: BotApiState, params: Params): ApiAnswer {
  if (params.inline_message_id !== undefined) return error(400, "Bad Request: inline messages are not supported by the fake");
  const chatId = String(params.chat_id ?? "");
  if (!state.chat(chatId)) return error(400, "Bad Request: chat not found");
  const messageId = optionalInt(params.message_id);
  const stored = messageId === undefined ? undefined : state.message(chatId, messageId);
  if (messageId === undefined || !stored) return error(400, "Bad Request: message to edit not found");
  const sent = state.sentMessage(chatId, messageId);
  if (!sent) return error(400, "Bad Request: message can't be edited");
  const read = readMessageText(params, "Bad Request: MESSAGE_TOO_LONG");
  if (!read.ok) return read.answer;
  const markup = readInlineMarkup(params.reply_markup);
  if (!markup.ok) return error(400, markup.error);
  const version: MessageVersion = { text: read.text.raw, visible: read.text.visible, parseMode: read.text.parseMode, replyMarkup: markup.markup };
  if (sameContent(sent, version)) {
    return error(400, "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message");
  }
  Object.assign(sent, version);
  sent.versions.push({ ...version });
  // The stored message is what replies quote and presses carry, so it shows the edit too.
  const edited = stored as Message & { reply_markup?: unknown };
  edited.text = version.visible;
  edited.edit_date = Math.floor(state.now() / 1000);
  if (version.replyMarkup) edited.reply_markup = version.replyMarkup;
  else delete edited.reply_markup;
  return ok(edited);
}

function sameContent(current: MessageVersion, next: MessageVersion): boolean {
  return current.visible === next.visible && current.text === next.text && JSON.stringify(current.replyMarkup ?? null) === JSON.stringify(next.replyMarkup ?? null);
}
