import type { InboundMessage } from "@hermes/gateway";
import { SLACK_PLATFORM, slackTsToMs } from "./normalize.js";
import { isRecord } from "./slack-events.js";

/** A press of one of the bot's buttons, read from a `block_actions` interactivity payload. */
export interface ButtonPress {
  userId: string;
  channelId: string;
  /** The ts of the bot's message the button is on (what `send` returned). */
  messageTs: string;
  /** The thread that message is in, if any. */
  threadTs?: string;
  value: string;
  actionTs: string;
}

export type ReadPress = { ok: true; press: ButtonPress } | { ok: false; ignored: string };

type Json = Record<string, unknown>;

function text(record: Json | undefined, key: string): string | undefined {
  const value = record?.[key];
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

function record(value: unknown): Json | undefined {
  return isRecord(value) ? value : undefined;
}

/**
 * Reads a press from untrusted interactivity JSON. Only `block_actions` on a button with a value is a press; other
 * payloads (view submissions, shortcuts, menus) are not something the gateway offers, so they are ignored, not refused.
 */
export function readButtonPress(payload: Json): ReadPress {
  if (payload.type !== "block_actions") return { ok: false, ignored: `payload type ${typeof payload.type === "string" ? payload.type : "missing"}` };
  const actions = Array.isArray(payload.actions) ? payload.actions.map(record) : [];
  const action = actions.find((candidate) => candidate?.type === "button" && text(candidate, "value") !== undefined);
  if (!action) return { ok: false, ignored: "no button with a value" };
  const container = record(payload.container);
  const message = record(payload.message);
  const userId = text(record(payload.user), "id");
  const channelId = text(record(payload.channel), "id") ?? text(container, "channel_id");
  const messageTs = text(container, "message_ts") ?? text(message, "ts");
  if (!userId || !channelId || !messageTs) return { ok: false, ignored: "no user, channel or message" };
  const value = text(action, "value") ?? "";
  const actionTs = text(action, "action_ts") ?? text(payload, "action_ts") ?? text(payload, "trigger_id") ?? messageTs;
  const press: ButtonPress = { userId, channelId, messageTs, value, actionTs };
  const threadTs = text(container, "thread_ts") ?? text(message, "thread_ts");
  if (threadTs) press.threadTs = threadTs;
  return { ok: true, press };
}

/** The gateway's id of a press: stable if Slack delivers it again, and unlike any message id (`<channel>:<ts>`). */
export function pressMessageId(press: ButtonPress): string {
  return `act${press.actionTs}.${press.userId}`;
}

/**
 * The message the gateway sees: the button's value typed by the presser where the bot's message is. A channel
 * message's thread is its thread, or the message itself when it is top-level (as typed channel messages map), so the
 * answer goes where the conversation is; a DM keeps its thread only when it has one.
 */
export function buttonPressMessage(press: ButtonPress, now: number): InboundMessage {
  const isDm = press.channelId.startsWith("D");
  const message: InboundMessage = {
    platform: SLACK_PLATFORM,
    chat: { id: press.channelId, type: isDm ? "dm" : "group" },
    user: { id: press.userId },
    messageId: pressMessageId(press),
    text: press.value,
    attachments: [],
    mentionedBot: true,
    timestamp: slackTsToMs(press.actionTs) || now,
    action: { messageId: press.messageTs },
  };
  const threadId = isDm ? press.threadTs : (press.threadTs ?? press.messageTs);
  if (threadId) message.threadId = threadId;
  return message;
}
