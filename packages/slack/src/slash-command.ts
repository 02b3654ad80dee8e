import { randomUUID } from "node:crypto";
import type { InboundMessage } from "@hermes/gateway";
import { SLACK_PLATFORM } from "./normalize.js";

/** The fields of a slash command request that the gateway uses (Slack sends them form-encoded). */
export interface SlashCommand {
  command: string;
  text: string;
  userId: string;
  channelId: string;
  responseUrl: string;
  /** Unique per invocation; the deduplication key and the key of the pending reply. */
  invocationId: string;
}

export type ParsedSlashCommand = { ok: true; command: SlashCommand } | { ok: false; problem: string };

/**
 * A slash command's replies go to its response_url, not the channel: its messages carry this prefix (plus the
 * invocation id) in the field that becomes the reply target, so the adapter's send() recognizes them.
 */
export const SLASH_REPLY_PREFIX = "slash:";

/** Reads a slash command's fields: form-encoded over HTTP, a JSON object over Socket Mode. */
export function parseSlashCommand(fields: Readonly<Record<string, unknown>>): ParsedSlashCommand {
  const field = (name: string): string => {
    const value = fields[name];
    return typeof value === "string" ? value.trim() : "";
  };
  const command = { command: field("command"), text: field("text"), userId: field("user_id"), channelId: field("channel_id"), responseUrl: field("response_url") };
  for (const [name, value] of [["command", command.command], ["user_id", command.userId], ["channel_id", command.channelId], ["response_url", command.responseUrl]] as const) {
    if (value === "") return { ok: false, problem: `the slash command has no ${name}` };
  }
  return { ok: true, command: { ...command, invocationId: field("trigger_id") || randomUUID() } };
}

/**
 * The chat command a slash command stands for: `/hermes status` runs `/status`, and a bare `/hermes` runs `/help`.
 * Everything after `/hermes` is taken as a command (an unknown one is answered with the unknown-command text), since
 * its output is shown only to the invoker and an agent's answer belongs in the conversation.
 */
export function slashCommandText(text: string): string {
  const trimmed = text.replace(/^\/+/, "").trim();
  return trimmed === "" ? "/help" : `/${trimmed}`;
}

/**
 * The message the gateway sees: from the invoker, in the channel it was typed in, with the session key a DM (or a
 * channel message outside a thread) of that user has. The reply marker goes where the gateway takes the reply target
 * from without changing the session key: a DM's thread (DM keys ignore threads), a channel message's reply-to id.
 */
export function slashCommandMessage(command: SlashCommand, now: number): InboundMessage {
  const marker = `${SLASH_REPLY_PREFIX}${command.invocationId}`;
  const isDm = command.channelId.startsWith("D");
  const message: InboundMessage = {
    platform: SLACK_PLATFORM,
    chat: { id: command.channelId, type: isDm ? "dm" : "group" },
    user: { id: command.userId },
    messageId: marker,
    text: slashCommandText(command.text),
    attachments: [],
    mentionedBot: true,
    timestamp: now,
  };
  if (isDm) message.threadId = marker;
  else message.replyToId = marker;
  return message;
}

/** The invocation id when a reply target (thread or reply-to id) is a slash command's. */
export function slashInvocationOf(targetId: string | undefined): string | undefined {
  return targetId?.startsWith(SLASH_REPLY_PREFIX) ? targetId.slice(SLASH_REPLY_PREFIX.length) : undefined;
}
