import type { InboundMessage, OutboundTarget } from "@hermes/gateway";
import { DISCORD_PLATFORM } from "./normalize.js";

/** The one option of a command that takes arguments: everything after the command name. */
export const ARGS_OPTION = "args";
/**
 * A slash command's replies go to its interaction, not the channel: its message carries this prefix (plus the
 * interaction id) as its id and in the field that becomes the reply target, so the adapter's send() recognizes them.
 */
export const INTERACTION_REPLY_PREFIX = "interaction:";

/** Discord's rules for a global chat-input command: lowercase names of 1–32 characters, descriptions of 1–100. */
const NAME = /^[-_\p{Ll}\p{N}]{1,32}$/u;
const MAX_DESCRIPTION = 100;
const STRING_OPTION = 3;

export interface ChatCommand {
  name: string;
  /** `/model [provider/model-id | default]`: anything after the name means the command takes arguments. */
  usage: string;
  description: string;
}

export interface SlashCommandDefinition {
  name: string;
  description: string;
  options?: { type: typeof STRING_OPTION; name: typeof ARGS_OPTION; description: string; required: false }[];
}

/** The gateway's chat commands as Discord application commands; names Discord would refuse are left out. */
export function discordSlashCommands(commands: readonly ChatCommand[]): SlashCommandDefinition[] {
  const list: SlashCommandDefinition[] = [];
  for (const command of commands) {
    const name = command.name.toLowerCase();
    if (!NAME.test(name) || list.some((entry) => entry.name === name)) continue;
    const argsUsage = command.usage.trim().split(/\s+/).slice(1).join(" ");
    list.push({
      name,
      description: clip(command.description.trim() || name),
      ...(argsUsage ? { options: [{ type: STRING_OPTION, name: ARGS_OPTION, description: clip(argsUsage), required: false }] } : {}),
    });
  }
  return list;
}

/** What the adapter read off a chat-input interaction. */
export interface SlashInvocation {
  interactionId: string;
  name: string;
  args: string;
  user: { id: string; name?: string };
  channelId: string;
  /** Absent in DMs. */
  guild?: { id: string; name?: string };
  channelName?: string;
  /** Set when the command was typed in a thread: the thread's parent channel. */
  parentChannelId?: string;
  timestamp: number;
}

/**
 * The message the gateway sees: from the invoker, in the channel it was typed in, with the session key a message of
 * theirs there has. The marker goes where the gateway takes the reply target from without changing the session key:
 * a DM's thread (DM keys ignore threads), a guild message's reply-to id.
 */
export function slashCommandMessage(invocation: SlashInvocation): InboundMessage {
  const marker = `${INTERACTION_REPLY_PREFIX}${invocation.interactionId}`;
  const base = {
    platform: DISCORD_PLATFORM,
    user: { id: invocation.user.id, ...(invocation.user.name ? { name: invocation.user.name } : {}), isBot: false },
    messageId: marker,
    text: `/${invocation.name}${invocation.args ? ` ${invocation.args}` : ""}`,
    attachments: [],
    mentionedBot: true,
    timestamp: invocation.timestamp,
  };
  const guild = invocation.guild;
  if (!guild) return { ...base, chat: { id: invocation.channelId, type: "dm" }, threadId: marker };
  const where = `${guild.name ?? "a server"}`;
  const channel = invocation.channelName ?? invocation.channelId;
  if (invocation.parentChannelId) {
    const title = `${where} › thread ${channel} (guild ${guild.id})`;
    return { ...base, chat: { id: invocation.parentChannelId, type: "group", title }, threadId: invocation.channelId, replyToId: marker };
  }
  return { ...base, chat: { id: invocation.channelId, type: "group", title: `${where} #${channel} (guild ${guild.id})` }, replyToId: marker };
}

/** The interaction id when a reply target is a slash command's. */
export function interactionIdOf(target: OutboundTarget): string | undefined {
  return markedId(target.threadId) ?? markedId(target.replyToMessageId);
}

/** The channel message a slash command's reply becomes when its interaction can no longer be answered. */
export function channelTargetOf(target: OutboundTarget): OutboundTarget {
  const threadId = target.threadId !== undefined && markedId(target.threadId) === undefined ? target.threadId : undefined;
  return { chatId: target.chatId, ...(threadId ? { threadId } : {}) };
}

function markedId(id: string | undefined): string | undefined {
  return id?.startsWith(INTERACTION_REPLY_PREFIX) ? id.slice(INTERACTION_REPLY_PREFIX.length) : undefined;
}

function clip(text: string): string {
  return text.length > MAX_DESCRIPTION ? `${text.slice(0, MAX_DESCRIPTION - 1)}…` : text;
}
