import type { InboundMessage } from "@hermes/gateway";
import type { SlackFile, SlackMessageEvent } from "./slack-events.js";
import { decodeSlackText } from "./slack-text.js";

export const SLACK_PLATFORM = "slack";

export interface NormalizeContext {
  botUserId: string;
  botName?: string;
  /** The bot has posted in this thread, so replies there continue the conversation without a mention. */
  botIsInThread(channel: string, threadTs: string): boolean;
}

export type NormalizedEvent = { ok: true; message: InboundMessage; files: SlackFile[] } | { ok: false; reason: string };

// Plain messages, messages with files, and thread replies also sent to the channel; edits, deletions, joins and the
// like are not something a person asked.
const HANDLED_SUBTYPES: ReadonlySet<string> = new Set(["file_share", "thread_broadcast"]);

/**
 * The deduplication key: the message itself (channel + ts), not the event id, so the same message delivered as both
 * `message` and `app_mention`, or re-delivered by Slack, is handled once.
 */
export function slackMessageId(channel: string, ts: string): string {
  return `${channel}:${ts}`;
}

/** Slack's ts ("1712345678.000200") is seconds since the epoch. */
export function slackTsToMs(ts: string): number {
  const seconds = Number(ts);
  return Number.isFinite(seconds) ? Math.round(seconds * 1000) : 0;
}

/**
 * Turns a message or app_mention event into the gateway's model.
 * - DMs (`channel_type: im`) are `dm` chats; a DM written in a thread is answered in that thread.
 * - Everything else is a `group`. Every channel message gets a thread id: its thread's `thread_ts`, or its own ts
 *   when it is top-level — answers go into a thread on it, and the follow-ups in that thread then share its session.
 * - A thread reply where the bot has posted counts as a reply to the bot, so it is answered without a mention.
 */
export function normalizeSlackEvent(event: SlackMessageEvent, context: NormalizeContext): NormalizedEvent {
  if (event.subtype !== undefined && !HANDLED_SUBTYPES.has(event.subtype)) return { ok: false, reason: `subtype ${event.subtype}` };
  if (event.botId !== undefined) return { ok: false, reason: "bot message" };
  if (event.hidden) return { ok: false, reason: "hidden message" };
  if (event.user === undefined) return { ok: false, reason: "no author" };
  if (event.user === context.botUserId) return { ok: false, reason: "own message" };

  const decoded = decodeSlackText(event.text, { userId: context.botUserId, name: context.botName });
  // Nothing was asked: an empty or whitespace text (or a bare mention) without files would only start an empty run.
  if (decoded.text === "" && event.files.length === 0) return { ok: false, reason: "no text or files" };
  const inThread = event.threadTs !== undefined && event.threadTs !== event.ts;
  const message: InboundMessage = {
    platform: SLACK_PLATFORM,
    chat: { id: event.channel, type: "group" },
    user: { id: event.user },
    messageId: slackMessageId(event.channel, event.ts),
    text: decoded.text,
    attachments: [],
    mentionedBot: false,
    timestamp: slackTsToMs(event.ts),
    replyToId: event.ts,
  };
  if (isDirectMessage(event)) {
    message.chat = { id: event.channel, type: "dm" };
    message.mentionedBot = true;
    if (inThread && event.threadTs) message.threadId = event.threadTs;
    return { ok: true, message, files: event.files };
  }
  message.threadId = inThread && event.threadTs ? event.threadTs : event.ts;
  message.mentionedBot = event.type === "app_mention" || decoded.mentionedBot;
  if (inThread && event.threadTs && (context.botIsInThread(event.channel, event.threadTs) || event.parentUserId === context.botUserId)) {
    message.replyTo = { messageId: slackMessageId(event.channel, event.threadTs), fromBot: true };
  }
  return { ok: true, message, files: event.files };
}

function isDirectMessage(event: SlackMessageEvent): boolean {
  if (event.channelType !== undefined) return event.channelType === "im";
  // app_mention carries no channel_type; DM channel ids start with D.
  return event.channel.startsWith("D");
}

/** The message is meant for the bot: a DM, a mention, or a reply in a thread the bot is part of. */
export function isAddressedToBot(message: InboundMessage): boolean {
  return message.chat.type === "dm" || message.mentionedBot || message.replyTo?.fromBot === true;
}
