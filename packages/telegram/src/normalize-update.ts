import type { InboundMessage } from "@hermes/gateway";
import type { Message, MessageEntity, Update } from "grammy/types";
import type { BotIdentity } from "./bot-identity.js";
import { addressCommand } from "./command-address.js";
import { fileRefsOf, type FileRef } from "./file-refs.js";
import { chatOf, fullName, topicOf, userOf } from "./message-fields.js";
import { mentionsBot } from "./mentions.js";
import { normalizeCallbackQuery } from "./normalize-callback.js";
import { TELEGRAM_PLATFORM } from "./platform-name.js";

export { chatTypeOf } from "./message-fields.js";
export { TELEGRAM_PLATFORM } from "./platform-name.js";

export type NormalizedUpdate =
  /**
   * `files` still have to be downloaded into `message.attachments`; `callbackQueryId` (a button press) is to be
   * answered, so the user's app stops showing progress on the button.
   */
  | { kind: "message"; message: InboundMessage; files: FileRef[]; callbackQueryId?: string }
  | { kind: "ignored"; reason: string };

export interface NormalizeOptions {
  bot: BotIdentity;
  /** The name the gateway matches `/cmd@name` against (HERMES_BOT_NAME), when set. */
  gatewayName?: string;
  /** Stamps button presses, which carry no time of their own (default Date.now). */
  now?: () => number;
}

/**
 * Turns a Telegram update into the gateway's message model. The update id is the deduplication key (Telegram
 * re-delivers an update, with the same id, until it is confirmed); the message id is what a reply quotes. Edits,
 * service messages (members joining, pinned messages, topic changes …) and content without text or files are ignored.
 * A press of one of the bot's buttons is a message too.
 */
export function normalizeUpdate(update: Update, options: NormalizeOptions): NormalizedUpdate {
  if (update.callback_query) return normalizeCallbackQuery(update.callback_query, (options.now ?? Date.now)());
  if (update.edited_message || update.edited_channel_post) return ignored("edited message");
  const message = update.message ?? update.channel_post;
  if (!message) return ignored("not a new message");
  const files = fileRefsOf(message);
  const rawText = message.text ?? message.caption ?? "";
  if (rawText.trim() === "" && files.length === 0) return ignored("service message or content without text or files");

  const command = addressCommand(rawText, { username: options.bot.username, gatewayName: options.gatewayName });
  if (command.kind === "other-bot") return ignored("command for another bot");
  const given: unknown = message.entities ?? message.caption_entities;
  // Broken entities only cost the mention they might have carried, not the message.
  const entities = Array.isArray(given) ? (given as MessageEntity[]) : [];
  const replyTo = replyOf(message, options.bot);
  const threadId = topicOf(message);

  const inbound: InboundMessage = {
    platform: TELEGRAM_PLATFORM,
    chat: chatOf(message.chat),
    user: senderOf(message),
    messageId: String(update.update_id),
    text: command.text,
    attachments: [],
    mentionedBot: command.namesBot || mentionsBot(rawText, entities, options.bot),
    timestamp: message.date * 1000,
    replyToId: String(message.message_id),
  };
  if (threadId !== undefined) inbound.threadId = threadId;
  if (replyTo) inbound.replyTo = replyTo;
  return { kind: "message", message: inbound, files };
}

/** Anonymous admins and channels write as a chat; they are identified by it. */
function senderOf(message: Message): InboundMessage["user"] {
  const from = message.from;
  if (from && !message.sender_chat) return userOf(from);
  const chat = message.sender_chat ?? message.chat;
  const name = chat.type === "private" ? fullName(chat) : chat.title;
  return name ? { id: String(chat.id), name, isBot: false } : { id: String(chat.id), isBot: false };
}

function replyOf(message: Message, bot: BotIdentity): InboundMessage["replyTo"] {
  const original = message.reply_to_message;
  if (!original) return undefined;
  // Every message in a forum topic "replies" to the topic's first message, which is no reply at all.
  if (original.forum_topic_created || (message.is_topic_message === true && original.message_id === message.message_thread_id)) return undefined;
  const reply: NonNullable<InboundMessage["replyTo"]> = { messageId: String(original.message_id), fromBot: original.from?.id === bot.id };
  const text = original.text ?? original.caption;
  if (text) reply.text = text;
  return reply;
}

function ignored(reason: string): NormalizedUpdate {
  return { kind: "ignored", reason };
}
