import { describe, expect, it } from "vitest";
import type { DiscordMessageView } from "./message-view.js";
import { normalizeMessage, type NormalizeContext } from "./normalize.js";

const BOT = "900000000000000001";
const BOT_ROLE = "900000000000000777";

function view(overrides: Partial<DiscordMessageView> = {}): DiscordMessageView {
  return {
    id: "1100000000000000001",
    isChat: true,
    channelId: "1200000000000000001",
    channelKind: "guild",
    channelName: "general",
    guildId: "1300000000000000001",
    guildName: "Hermes Lab",
    author: { id: "1400000000000000001", name: "Ada", isBot: false },
    content: "hello",
    createdAt: 1_700_000_000_000,
    mentionedUserIds: [],
    mentionedRoleIds: [],
    mentionsEveryone: false,
    attachments: [],
    botRoleIds: [BOT_ROLE],
    ...overrides,
  };
}

const context: NormalizeContext = { botUserId: BOT, sentByBot: (id) => id === "1500000000000000009" };

function normalized(overrides: Partial<DiscordMessageView> = {}, ctx: NormalizeContext = context) {
  const result = normalizeMessage(view(overrides), ctx);
  if (result.kind !== "message") throw new Error(`skipped: ${result.reason}`);
  return result;
}

describe("normalizeMessage", () => {
  it("makes a DM a dm chat keyed by its channel, always addressed", () => {
    const { message, addressed } = normalized({ channelKind: "dm", guildId: undefined, guildName: undefined, channelName: undefined });
    expect(message).toMatchObject({
      platform: "discord",
      chat: { id: "1200000000000000001", type: "dm" },
      user: { id: "1400000000000000001", name: "Ada", isBot: false },
      messageId: "1100000000000000001",
      text: "hello",
      mentionedBot: false,
      timestamp: 1_700_000_000_000,
    });
    expect(message.threadId).toBeUndefined();
    expect(addressed).toBe(true);
  });

  it("makes a guild channel a group that keeps the guild in its title", () => {
    const { message, addressed } = normalized();
    expect(message.chat).toEqual({ id: "1200000000000000001", type: "group", title: "Hermes Lab #general (guild 1300000000000000001)" });
    expect(addressed).toBe(false);
  });

  it("makes a thread a thread of its parent channel", () => {
    const { message } = normalized({ channelKind: "thread", channelId: "1200000000000000055", channelName: "planning", parentChannelId: "1200000000000000001" });
    expect(message.chat.id).toBe("1200000000000000001");
    expect(message.chat.type).toBe("group");
    expect(message.threadId).toBe("1200000000000000055");
  });

  it("counts a mention of the bot or of its role, strips it from the front, and ignores @everyone", () => {
    const byUser = normalized({ content: `<@${BOT}> /status`, mentionedUserIds: [BOT] });
    expect(byUser.message).toMatchObject({ mentionedBot: true, text: "/status" });
    expect(byUser.addressed).toBe(true);

    const byRole = normalized({ content: `<@&${BOT_ROLE}>, deploy please`, mentionedRoleIds: [BOT_ROLE] });
    expect(byRole.message).toMatchObject({ mentionedBot: true, text: "deploy please" });

    const otherRole = normalized({ content: "<@&900000000000000888> deploy", mentionedRoleIds: ["900000000000000888"] });
    expect(otherRole.message.mentionedBot).toBe(false);

    const everyone = normalized({ content: "@everyone deploy", mentionsEveryone: true });
    expect(everyone.message.mentionedBot).toBe(false);
    expect(everyone.addressed).toBe(false);
  });

  it("renders the mentions left in the text readable", () => {
    const { message } = normalized(
      { content: `<@${BOT}> ask <@1400000000000000002> about it`, mentionedUserIds: [BOT, "1400000000000000002"] },
      { ...context, renderMentions: (text) => text.replace("<@1400000000000000002>", "@Grace") },
    );
    expect(message.text).toBe("ask @Grace about it");
  });

  it("treats a reply to the bot as addressing it, whether or not Discord sent the referenced message", () => {
    const quoted = normalized({ reference: { messageId: "1500000000000000001", authorId: BOT, content: "Earlier answer" } });
    expect(quoted.message.replyTo).toEqual({ messageId: "1500000000000000001", fromBot: true, text: "Earlier answer" });
    expect(quoted.addressed).toBe(true);

    const remembered = normalized({ reference: { messageId: "1500000000000000009" } });
    expect(remembered.message.replyTo).toEqual({ messageId: "1500000000000000009", fromBot: true });

    const toSomeoneElse = normalized({ reference: { messageId: "1500000000000000002", authorId: "1400000000000000002" } });
    expect(toSomeoneElse.message.replyTo?.fromBot).toBe(false);
    expect(toSomeoneElse.addressed).toBe(false);
  });

  it("lists attachments with their kind and URL for downloading", () => {
    const { message } = normalized({
      content: "",
      attachments: [{ id: "1", name: "chart.png", url: "https://cdn.discordapp.com/a/chart.png", sizeBytes: 2048, contentType: "image/png" }],
    });
    expect(message.text).toBe("");
    expect(message.attachments).toEqual([
      { kind: "image", name: "chart.png", mimeType: "image/png", sizeBytes: 2048, ref: "https://cdn.discordapp.com/a/chart.png" },
    ]);
  });

  it("skips bots, itself, system messages, odd channels and empty messages", () => {
    expect(normalizeMessage(view({ author: { id: "1", name: "helper", isBot: true } }), context)).toMatchObject({ kind: "skip" });
    expect(normalizeMessage(view({ author: { id: BOT, name: "hermes", isBot: false } }), context)).toMatchObject({ kind: "skip" });
    expect(normalizeMessage(view({ isChat: false }), context)).toMatchObject({ kind: "skip", reason: "system message" });
    expect(normalizeMessage(view({ channelKind: "unsupported" }), context)).toMatchObject({ kind: "skip" });
    // An event without an id (hostile or broken) could never be saved; retrying to save it would only block the channel.
    expect(normalizeMessage(view({ id: "" }), context)).toEqual({ kind: "skip", reason: "no message id" });
    expect(normalizeMessage(view({ id: undefined as unknown as string }), context)).toEqual({ kind: "skip", reason: "no message id" });
    const empty = normalizeMessage(view({ content: `<@${BOT}>`, mentionedUserIds: [BOT] }), context);
    expect(empty).toMatchObject({ kind: "skip" });
    expect(empty.kind === "skip" && empty.reason).toContain("Message Content intent");
  });
});
