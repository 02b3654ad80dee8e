import type { CallbackQuery } from "grammy/types";
import { describe, expect, it } from "vitest";
import { normalizeCallbackQuery } from "./normalize-callback.js";

const ADA = { id: 7, is_bot: false, first_name: "Ada", last_name: "Lovelace" };

describe("normalizeCallbackQuery", () => {
  it("presses on a message too old for the bot to see go to its chat, without a topic", () => {
    const query: CallbackQuery = { id: "77", from: ADA, chat_instance: "c", data: "/deny a1", message: { chat: { id: -100, type: "supergroup", title: "Ops" }, message_id: 12, date: 0 } };
    expect(normalizeCallbackQuery(query, 5)).toEqual({
      kind: "message",
      callbackQueryId: "77",
      files: [],
      message: {
        platform: "telegram",
        chat: { id: "-100", type: "group", title: "Ops" },
        user: { id: "7", name: "Ada Lovelace", isBot: false },
        messageId: "cb77",
        text: "/deny a1",
        attachments: [],
        mentionedBot: true,
        timestamp: 5,
        replyToId: "12",
        action: { messageId: "12" },
      },
    });
  });

  it("ignores presses without a chat message or data", () => {
    expect(normalizeCallbackQuery({ id: "1", from: ADA, chat_instance: "c", inline_message_id: "i", data: "/x" }, 0)).toEqual({ kind: "ignored", reason: "button press on an inline message" });
    expect(normalizeCallbackQuery({ id: "2", from: ADA, chat_instance: "c", data: "", message: { chat: { id: 7, type: "private", first_name: "Ada" }, message_id: 3, date: 0 } }, 0)).toEqual({ kind: "ignored", reason: "button press without data" });
  });
});
