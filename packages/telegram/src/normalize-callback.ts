import type { InboundMessage } from "@hermes/gateway";
import type { CallbackQuery } from "grammy/types";
import { chatOf, topicOf, userOf } from "./message-fields.js";
import type { NormalizedUpdate } from "./normalize-update.js";
import { TELEGRAM_PLATFORM } from "./platform-name.js";

/**
 * A press of a button under one of the bot's messages, as the message its value stands for: from the presser, in the
 * chat (and topic) of that message, addressed to the bot. The query id keys deduplication (Telegram re-delivers the
 * update, not the press); the bot's message id is what the gateway replies to and edits. Presses of buttons in inline
 * messages (no chat) or of game buttons (no data) are none of the gateway's.
 */
export function normalizeCallbackQuery(query: CallbackQuery, now: number): NormalizedUpdate {
  const message = query.message;
  if (!message) return { kind: "ignored", reason: "button press on an inline message" };
  if (typeof query.data !== "string" || query.data === "") return { kind: "ignored", reason: "button press without data" };
  const botMessageId = String(message.message_id);
  const inbound: InboundMessage = {
    platform: TELEGRAM_PLATFORM,
    chat: chatOf(message.chat),
    user: userOf(query.from),
    messageId: `cb${query.id}`,
    text: query.data,
    attachments: [],
    // A press always addresses the bot, in a group too.
    mentionedBot: true,
    timestamp: now,
    replyToId: botMessageId,
    action: { messageId: botMessageId },
  };
  // An inaccessible (old) message has no topic fields: the press then goes to the chat itself.
  const threadId = "is_topic_message" in message ? topicOf(message) : undefined;
  if (threadId !== undefined) inbound.threadId = threadId;
  return { kind: "message", message: inbound, files: [], callbackQueryId: query.id };
}
