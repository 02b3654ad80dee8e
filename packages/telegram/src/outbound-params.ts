import type { OutboundMessage, OutboundTarget } from "@hermes/gateway";
import type { InlineKeyboardMarkup } from "grammy/types";

export interface SendMessageOptions {
  parse_mode?: "HTML";
  message_thread_id?: number;
  reply_parameters?: { message_id: number; allow_sending_without_reply: true };
  reply_markup?: InlineKeyboardMarkup;
}

export interface EditMessageOptions {
  parse_mode?: "HTML";
  /** Absent: the edited message shows no buttons (Telegram drops an inline keyboard an edit does not repeat). */
  reply_markup?: InlineKeyboardMarkup;
}

/** Telegram takes numeric chat ids as numbers and public usernames ("@channel") as strings. */
export function telegramChatId(chatId: string): number | string {
  return /^-?\d+$/.test(chatId) ? Number(chatId) : chatId;
}

/**
 * Where and how a message goes: in the same forum topic, quoting the message it answers (still sent if that message
 * was deleted meanwhile), and as HTML when it was formatted.
 */
export function sendMessageOptions(target: OutboundTarget, format: OutboundMessage["format"], keyboard?: InlineKeyboardMarkup): SendMessageOptions {
  const options: SendMessageOptions = {};
  if (format === "markdown") options.parse_mode = "HTML";
  if (keyboard) options.reply_markup = keyboard;
  const thread = numericId(target.threadId);
  if (thread !== undefined) options.message_thread_id = thread;
  const replyTo = numericId(target.replyToMessageId);
  if (replyTo !== undefined) options.reply_parameters = { message_id: replyTo, allow_sending_without_reply: true };
  return options;
}

/** An edit in the same markup as a send, showing exactly the given buttons. */
export function editMessageOptions(format: OutboundMessage["format"], keyboard: InlineKeyboardMarkup | undefined): EditMessageOptions {
  const options: EditMessageOptions = {};
  if (format === "markdown") options.parse_mode = "HTML";
  if (keyboard) options.reply_markup = keyboard;
  return options;
}

/** Typing shows in the topic the answer will go to. */
export function chatActionOptions(target: OutboundTarget): { message_thread_id?: number } {
  const thread = numericId(target.threadId);
  return thread === undefined ? {} : { message_thread_id: thread };
}

function numericId(value: string | undefined): number | undefined {
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
}
