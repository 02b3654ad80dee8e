import type { InboundAttachment, InboundMessage } from "@hermes/gateway";
import { attachmentKind } from "./attachment-kind.js";
import { mentionsBot, stripLeadingBotMentions } from "./mentions.js";
import type { DiscordMessageView } from "./message-view.js";

export const DISCORD_PLATFORM = "discord";

export interface NormalizeContext {
  botUserId: string;
  /** A reply to a message the bot sent addresses it even when Discord left the referenced message out. */
  sentByBot: (messageId: string) => boolean;
  /** Makes the remaining `<@id>` / `<#id>` tokens readable (discord.js's cleanContent); left as they are by default. */
  renderMentions?: (text: string) => string;
}

export type Normalized =
  | { kind: "skip"; reason: string }
  /** `addressed`: a DM, or the bot was mentioned or replied to (attachments are only downloaded then). */
  | { kind: "message"; message: InboundMessage; addressed: boolean };

/** Turns a Discord message into the gateway's InboundMessage, or says why it is not one the gateway should see. */
export function normalizeMessage(view: DiscordMessageView, context: NormalizeContext): Normalized {
  // Bots answering bots (or the bot answering its own echo) loop forever; webhooks and system users count as bots.
  if (view.author.isBot || view.author.id === context.botUserId) return { kind: "skip", reason: "message from a bot" };
  if (!view.isChat) return { kind: "skip", reason: "system message" };
  // Without an id it could be neither deduplicated nor saved, and every attempt to save it would fail.
  if (typeof view.id !== "string" || view.id === "") return { kind: "skip", reason: "no message id" };
  if (view.channelKind === "unsupported") return { kind: "skip", reason: "unsupported channel type" };

  const stripped = stripLeadingBotMentions(view.content, context.botUserId, view.botRoleIds);
  const text = (context.renderMentions ?? ((t: string) => t))(stripped).trim();
  if (text.length === 0 && view.attachments.length === 0) {
    return { kind: "skip", reason: "no text or attachments (is the Message Content intent enabled for the bot?)" };
  }

  const reference = view.reference;
  const replyTo = reference && {
    messageId: reference.messageId,
    fromBot: reference.authorId === context.botUserId || context.sentByBot(reference.messageId),
    ...(reference.content ? { text: reference.content } : {}),
  };
  const mentionedBot = mentionsBot(view, context.botUserId);
  const message: InboundMessage = {
    platform: DISCORD_PLATFORM,
    ...placeOf(view),
    user: { id: view.author.id, name: view.author.name, isBot: false },
    messageId: view.id,
    text,
    attachments: view.attachments.map(toAttachment),
    mentionedBot,
    timestamp: view.createdAt,
    ...(replyTo ? { replyTo } : {}),
  };
  const addressed = view.channelKind === "dm" || mentionedBot || replyTo?.fromBot === true;
  return { kind: "message", message, addressed };
}

/** Where a message (or a press of a button under one) happened. */
export type ChannelPlace = Pick<DiscordMessageView, "channelId" | "channelKind" | "channelName" | "parentChannelId" | "guildId" | "guildName">;

/** A thread is a conversation inside its parent channel: the chat is the parent, the thread its own session. */
export function placeOf(view: ChannelPlace): Pick<InboundMessage, "chat" | "threadId"> {
  if (view.channelKind === "dm") return { chat: { id: view.channelId, type: "dm" } };
  const where = view.guildName ?? "a server";
  const guild = view.guildId ? ` (guild ${view.guildId})` : "";
  if (view.channelKind === "thread" && view.parentChannelId) {
    const title = `${where} › thread ${view.channelName ?? view.channelId}${guild}`;
    return { chat: { id: view.parentChannelId, type: "group", title }, threadId: view.channelId };
  }
  return { chat: { id: view.channelId, type: "group", title: `${where} #${view.channelName ?? view.channelId}${guild}` } };
}

function toAttachment(attachment: DiscordMessageView["attachments"][number]): InboundAttachment {
  return {
    kind: attachmentKind(attachment.contentType, attachment.name),
    name: attachment.name,
    ...(attachment.contentType ? { mimeType: attachment.contentType } : {}),
    sizeBytes: attachment.sizeBytes,
    ref: attachment.url,
  };
}
