import type { ChatType, InboundMessage } from "@hermes/gateway";
import type { Chat, Message, MessageEntity, Update } from "grammy/types";
import type { BotIdentity } from "./bot-identity.js";
import { addressCommand } from "./command-address.js";
import { fileRefsOf, type FileRef } from "./file-refs.js";
import { mentionsBot } from "./mentions.js";

export const TELEGRAM_PLATFORM = "telegram";

export type NormalizedUpdate =
  /** `files` still have to be downloaded into `message.attachments`. */
  | { kind: "message"; message: InboundMessage; files: FileRef[] }
  | { kind: "ignored"; reason: string };

export interface NormalizeOptions {
  bot: BotIdentity;
  /** The name the gateway matches `/cmd@name` against (HERMES_BOT_NAME), when set. */
  gatewayName?: string;
}

/**
 * Turns a Telegram update into the gateway's message model. The update id is the deduplication key (Telegram
 * re-delivers an update, with the same id, until it is confirmed); the message id is what a reply quotes. Edits,
 * service messages (members joining, pinned messages, topic changes …) and content without text or files are ignored.
 */
export function normalizeUpdate(update: Update, options: NormalizeOptions): NormalizedUpdate {
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

export function chatTypeOf(type: Chat["type"]): ChatType {
  if (type === "private") return "dm";
  if (type === "channel") return "channel";
  return "group";
}

function chatOf(chat: Chat): InboundMessage["chat"] {
  const title = chat.type === "private" ? fullName(chat) : chat.title;
  return title ? { id: String(chat.id), type: chatTypeOf(chat.type), title } : { id: String(chat.id), type: chatTypeOf(chat.type) };
}

/** Forum topics are threads; the reply chains of ordinary groups also carry a thread id, and are not. */
function topicOf(message: Message): string | undefined {
  if (message.is_topic_message !== true || message.message_thread_id === undefined) return undefined;
  return String(message.message_thread_id);
}

/** Anonymous admins and channels write as a chat; they are identified by it. */
function senderOf(message: Message): InboundMessage["user"] {
  const from = message.from;
  if (from && !message.sender_chat) {
    const name = fullName(from) || from.username;
    return name ? { id: String(from.id), name, isBot: from.is_bot } : { id: String(from.id), isBot: from.is_bot };
  }
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

function fullName(person: { first_name?: string; last_name?: string }): string {
  return [person.first_name, person.last_name].filter((part) => part !== undefined && part !== "").join(" ");
}

function ignored(reason: string): NormalizedUpdate {
  return { kind: "ignored", reason };
}
