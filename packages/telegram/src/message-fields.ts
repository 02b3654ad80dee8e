import type { ChatType, InboundMessage } from "@hermes/gateway";
import type { Chat, Message, User } from "grammy/types";

export function chatTypeOf(type: Chat["type"]): ChatType {
  if (type === "private") return "dm";
  if (type === "channel") return "channel";
  return "group";
}

export function chatOf(chat: Chat): InboundMessage["chat"] {
  const title = chat.type === "private" ? fullName(chat) : chat.title;
  return title ? { id: String(chat.id), type: chatTypeOf(chat.type), title } : { id: String(chat.id), type: chatTypeOf(chat.type) };
}

/** Forum topics are threads; the reply chains of ordinary groups also carry a thread id, and are not. */
export function topicOf(message: Pick<Message, "is_topic_message" | "message_thread_id">): string | undefined {
  if (message.is_topic_message !== true || message.message_thread_id === undefined) return undefined;
  return String(message.message_thread_id);
}

export function userOf(user: User): InboundMessage["user"] {
  const name = fullName(user) || user.username;
  return name ? { id: String(user.id), name, isBot: user.is_bot } : { id: String(user.id), isBot: user.is_bot };
}

export function fullName(person: { first_name?: string; last_name?: string }): string {
  return [person.first_name, person.last_name].filter((part) => part !== undefined && part !== "").join(" ");
}
