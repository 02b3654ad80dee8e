import { describe, expect, it } from "vitest";
import { isAddressedToBot, normalizeSlackEvent, type NormalizeContext } from "./normalize.js";
import { readMessageEvent } from "./slack-events.js";

const threadsWithBot = new Set(["C1:100.000001"]);
const context: NormalizeContext = { botUserId: "UBOT", botName: "hermes", botIsInThread: (c, t) => threadsWithBot.has(`${c}:${t}`) };

function normalize(raw: Record<string, unknown>) {
  const event = readMessageEvent(raw);
  if (!event) throw new Error("not a message event");
  return normalizeSlackEvent(event, context);
}

describe("normalizeSlackEvent", () => {
  it("makes a DM a dm chat, addressed, keyed by channel and ts", () => {
    const result = normalize({ type: "message", channel_type: "im", channel: "D1", user: "U1", text: "hi &amp; bye", ts: "1700000000.000100" });
    expect(result).toEqual({
      ok: true,
      files: [],
      message: {
        platform: "slack",
        chat: { id: "D1", type: "dm" },
        user: { id: "U1" },
        messageId: "D1:1700000000.000100",
        text: "hi & bye",
        attachments: [],
        mentionedBot: true,
        timestamp: 1_700_000_000_000,
        replyToId: "1700000000.000100",
      },
    });
  });

  it("keeps a DM thread as the thread to answer in", () => {
    const result = normalize({ type: "message", channel_type: "im", channel: "D1", user: "U1", text: "more", ts: "5.2", thread_ts: "5.1" });
    expect(result.ok && result.message.threadId).toBe("5.1");
  });

  it("makes a top-level channel mention a group message in a thread of its own", () => {
    const result = normalize({ type: "app_mention", channel: "C1", user: "U1", text: "<@UBOT> help", ts: "200.5" });
    expect(result.ok && result.message).toMatchObject({ chat: { id: "C1", type: "group" }, threadId: "200.5", mentionedBot: true, text: "help", messageId: "C1:200.5" });
  });

  it("gives the message and app_mention events of one message the same normalized form", () => {
    const text = "<@UBOT> hello";
    const viaMessage = normalize({ type: "message", channel_type: "channel", channel: "C1", user: "U1", text, ts: "300.1" });
    const viaMention = normalize({ type: "app_mention", channel: "C1", user: "U1", text, ts: "300.1" });
    expect(viaMessage).toEqual(viaMention);
  });

  it("answers a thread reply without a mention only where the bot is part of the thread", () => {
    const inBotThread = normalize({ type: "message", channel_type: "channel", channel: "C1", user: "U1", text: "and then?", ts: "100.000009", thread_ts: "100.000001" });
    expect(inBotThread.ok && inBotThread.message).toMatchObject({ threadId: "100.000001", mentionedBot: false, replyTo: { messageId: "C1:100.000001", fromBot: true } });
    expect(inBotThread.ok && isAddressedToBot(inBotThread.message)).toBe(true);

    const elsewhere = normalize({ type: "message", channel_type: "channel", channel: "C1", user: "U1", text: "chat", ts: "400.2", thread_ts: "400.1" });
    expect(elsewhere.ok && elsewhere.message.replyTo).toBeUndefined();
    expect(elsewhere.ok && isAddressedToBot(elsewhere.message)).toBe(false);

    const botStarted = normalize({ type: "message", channel_type: "channel", channel: "C1", user: "U1", text: "ok", ts: "500.2", thread_ts: "500.1", parent_user_id: "UBOT" });
    expect(botStarted.ok && botStarted.message.replyTo?.fromBot).toBe(true);
  });

  it("ignores bot messages, edits, deletions, joins and the bot's own messages", () => {
    const base = { type: "message", channel_type: "channel", channel: "C1", text: "x", ts: "1.1" };
    expect(normalize({ ...base, user: "U2", bot_id: "B2" })).toEqual({ ok: false, reason: "bot message" });
    expect(normalize({ ...base, subtype: "bot_message", bot_id: "B2" })).toMatchObject({ ok: false });
    expect(normalize({ ...base, subtype: "message_changed", hidden: true })).toEqual({ ok: false, reason: "subtype message_changed" });
    expect(normalize({ ...base, subtype: "message_deleted", hidden: true })).toMatchObject({ ok: false });
    expect(normalize({ ...base, subtype: "channel_join", user: "U1" })).toMatchObject({ ok: false });
    expect(normalize({ ...base, user: "UBOT" })).toEqual({ ok: false, reason: "own message" });
  });

  it("ignores a message with nothing in it: no text, only spaces or a bare mention, and no files", () => {
    const base = { type: "message", channel_type: "im", channel: "D1", user: "U1", ts: "2.2" };
    expect(normalize({ ...base })).toEqual({ ok: false, reason: "no text or files" });
    expect(normalize({ ...base, text: "  \n " })).toEqual({ ok: false, reason: "no text or files" });
    expect(normalize({ type: "app_mention", channel: "C1", user: "U1", text: "<@UBOT>", ts: "2.3" })).toEqual({ ok: false, reason: "no text or files" });
  });

  it("keeps file shares and their files", () => {
    const result = normalize({
      type: "message",
      subtype: "file_share",
      channel_type: "im",
      channel: "D1",
      user: "U1",
      text: "",
      ts: "9.9",
      files: [{ id: "F1", name: "a.png", mimetype: "image/png", size: 3, url_private_download: "https://files.slack.com/F1/a.png" }, { bogus: true }],
    });
    expect(result.ok && result.files).toEqual([{ id: "F1", name: "a.png", mimetype: "image/png", size: 3, url: "https://files.slack.com/F1/a.png", mode: undefined }]);
  });
});
