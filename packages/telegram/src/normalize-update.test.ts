import { describe, expect, it } from "vitest";
import type { Message, Update } from "grammy/types";
import { normalizeUpdate } from "./normalize-update.js";

const bot = { id: 4242, username: "hermes_bot" };
const ada = { id: 7, is_bot: false, first_name: "Ada", last_name: "Lovelace", username: "ada" };
const dm = { id: 7, type: "private" as const, first_name: "Ada" };
const group = { id: -100, type: "group" as const, title: "Friends" };
const forum = { id: -1001, type: "supergroup" as const, title: "Forum", is_forum: true as const };

function update(message: Record<string, unknown>, kind = "message"): Update {
  return { update_id: 500, [kind]: { message_id: 31, date: 1_700_000_000, chat: dm, from: ada, ...message } } as unknown as Update;
}

function normalized(u: Update) {
  const result = normalizeUpdate(u, { bot });
  if (result.kind !== "message") throw new Error(`ignored: ${result.reason}`);
  return result;
}

describe("normalizeUpdate", () => {
  it("keeps a message whose entities are broken, only without the mention they might have carried", () => {
    const mention = { type: "text_mention", offset: 0, length: 5, user: null };
    expect(normalized(update({ text: "hello", entities: [mention, null, 7] })).message).toMatchObject({ text: "hello", mentionedBot: false });
    expect(normalized(update({ text: "@hermes_bot hi", entities: "not a list" })).message).toMatchObject({ text: "@hermes_bot hi", mentionedBot: false });
    expect(normalized(update({ text: "@hermes_bot hi", entities: [{ type: "mention", offset: 9_000, length: 11 }] })).message.mentionedBot).toBe(false);
  });

  it("maps a private message: update id for dedup, message id to reply to, sender and time", () => {
    const { message, files } = normalized(update({ text: "hello" }));
    expect(message).toEqual({
      platform: "telegram",
      chat: { id: "7", type: "dm", title: "Ada" },
      user: { id: "7", name: "Ada Lovelace", isBot: false },
      messageId: "500",
      replyToId: "31",
      text: "hello",
      attachments: [],
      mentionedBot: false,
      timestamp: 1_700_000_000_000,
    });
    expect(files).toEqual([]);
  });

  it("maps chat types: group and supergroup to group, channel to channel", () => {
    expect(normalized(update({ text: "x", chat: group })).message.chat).toEqual({ id: "-100", type: "group", title: "Friends" });
    expect(normalized(update({ text: "x", chat: { ...forum, is_forum: undefined } })).message.chat.type).toBe("group");
    const channel = { id: -300, type: "channel", title: "News" };
    const post = normalized(update({ text: "post", chat: channel, from: undefined, sender_chat: channel }, "channel_post")).message;
    expect(post.chat.type).toBe("channel");
    expect(post.user).toEqual({ id: "-300", name: "News", isBot: false });
  });

  it("takes a forum topic as the thread, but not the reply chains of ordinary groups", () => {
    const topicStart = { message_id: 11, date: 1, chat: forum, forum_topic_created: { name: "A", icon_color: 1 } };
    const inTopic = normalized(update({ text: "x", chat: forum, message_thread_id: 11, is_topic_message: true, reply_to_message: topicStart })).message;
    expect(inTopic.threadId).toBe("11");
    expect(inTopic.replyTo).toBeUndefined();
    const chain = normalized(update({ text: "x", chat: group, message_thread_id: 20, reply_to_message: { message_id: 20, date: 1, chat: group, from: ada, text: "hi" } })).message;
    expect(chain.threadId).toBeUndefined();
    expect(chain.replyTo).toEqual({ messageId: "20", fromBot: false, text: "hi" });
  });

  it("notices replies to the bot", () => {
    const botMessage = { message_id: 12, date: 1, chat: group, from: { id: 4242, is_bot: true, first_name: "Hermes" }, text: "earlier answer" };
    expect(normalized(update({ text: "more", chat: group, reply_to_message: botMessage })).message.replyTo).toEqual({ messageId: "12", fromBot: true, text: "earlier answer" });
  });

  it("recognises @mentions of the bot by entity, whatever the case, with UTF-16 offsets", () => {
    const text = "😀 @Hermes_Bot look, and @someone_else";
    const entities = [
      { type: "mention", offset: 3, length: 11 },
      { type: "mention", offset: 25, length: 13 },
    ];
    expect(normalized(update({ text, entities, chat: group })).message.mentionedBot).toBe(true);
    expect(normalized(update({ text, entities: entities.slice(1), chat: group })).message.mentionedBot).toBe(false);
    const textMention = [{ type: "text_mention", offset: 0, length: 6, user: { id: 4242, is_bot: true, first_name: "Hermes" } }];
    expect(normalized(update({ text: "Hermes, hi", entities: textMention, chat: group })).message.mentionedBot).toBe(true);
  });

  it("treats /cmd@thisbot as addressing it, drops commands for other bots, and answers /start like /help", () => {
    const mine = normalized(update({ text: "/status@hermes_bot", chat: group })).message;
    expect(mine).toMatchObject({ text: "/status@hermes_bot", mentionedBot: true });
    expect(normalizeUpdate(update({ text: "/status@other_bot", chat: group }), { bot })).toEqual({ kind: "ignored", reason: "command for another bot" });
    expect(normalized(update({ text: "/start" })).message.text).toBe("/help");
  });

  it("reads captions as text and collects photos and documents", () => {
    const photo = [
      { file_id: "small", file_unique_id: "s", width: 90, height: 60, file_size: 100 },
      { file_id: "big", file_unique_id: "b", width: 1280, height: 853, file_size: 9000 },
    ];
    const result = normalized(update({ caption: "look @hermes_bot", caption_entities: [{ type: "mention", offset: 5, length: 11 }], photo }));
    expect(result.message).toMatchObject({ text: "look @hermes_bot", mentionedBot: true });
    expect(result.files).toEqual([{ kind: "image", fileId: "big", name: "photo.jpg", mimeType: "image/jpeg", sizeBytes: 9000 }]);
    const document = { file_id: "doc", file_unique_id: "d", file_name: "a.pdf", mime_type: "application/pdf", file_size: 10 };
    expect(normalized(update({ document })).files).toEqual([{ kind: "document", fileId: "doc", name: "a.pdf", mimeType: "application/pdf", sizeBytes: 10 }]);
  });

  it("identifies anonymous admins by their chat", () => {
    const anonymous = { id: 1087968824, is_bot: true, first_name: "Group", username: "GroupAnonymousBot" };
    expect(normalized(update({ text: "x", chat: group, from: anonymous, sender_chat: group })).message.user).toEqual({ id: "-100", name: "Friends", isBot: false });
  });

  it("ignores edits, service messages and content without text or files", () => {
    expect(normalizeUpdate(update({ text: "changed", edit_date: 2 }, "edited_message"), { bot }).kind).toBe("ignored");
    expect(normalizeUpdate(update({ new_chat_members: [ada] }), { bot }).kind).toBe("ignored");
    expect(normalizeUpdate(update({ chat: forum, forum_topic_created: { name: "A", icon_color: 1 } }), { bot }).kind).toBe("ignored");
    expect(normalizeUpdate(update({ sticker: { file_id: "s" } as unknown as Message["sticker"] }), { bot }).kind).toBe("ignored");
    expect(normalizeUpdate({ update_id: 1, callback_query: { id: "q" } } as unknown as Update, { bot }).kind).toBe("ignored");
  });
});
