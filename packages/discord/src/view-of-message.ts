import { ChannelType, MessageReferenceType, MessageType, type Guild, type Message } from "discord.js";
import type { ChannelKind, DiscordMessageView } from "./message-view.js";

const GUILD_TEXT_CHANNELS: ReadonlySet<ChannelType> = new Set([
  ChannelType.GuildText,
  ChannelType.GuildAnnouncement,
  ChannelType.GuildVoice,
  ChannelType.GuildStageVoice,
]);

/** Reads what normalization needs out of discord.js's object graph (its caches fill it from the gateway events). */
export async function viewOfMessage(message: Message, now: () => number): Promise<DiscordMessageView> {
  const channel = message.channel;
  const reference = message.reference;
  const isReply = reference?.messageId !== undefined && reference.type !== MessageReferenceType.Forward;
  const referenced = isReply && reference?.messageId ? channel.messages.cache.get(reference.messageId) : undefined;
  const mentionedRoleIds = [...message.mentions.roles.keys()];
  return {
    id: message.id,
    isChat: message.type === MessageType.Default || message.type === MessageType.Reply,
    channelId: channel.id,
    channelKind: channelKindOf(message),
    ...("name" in channel && typeof channel.name === "string" ? { channelName: channel.name } : {}),
    ...(channel.isThread() && channel.parentId ? { parentChannelId: channel.parentId } : {}),
    ...(message.guild ? { guildId: message.guild.id, guildName: message.guild.name } : {}),
    author: {
      id: message.author.id,
      name: message.member?.displayName ?? message.author.displayName,
      isBot: message.author.bot || message.webhookId !== null || message.system,
    },
    // discord.js keeps a null or missing content as it came.
    content: message.content ?? "",
    createdAt: Number.isFinite(message.createdTimestamp) ? message.createdTimestamp : now(),
    mentionedUserIds: [...message.mentions.users.keys()],
    mentionedRoleIds,
    mentionsEveryone: message.mentions.everyone,
    ...(isReply && reference?.messageId
      ? {
          reference: {
            messageId: reference.messageId,
            ...optional("authorId", referenced?.author?.id ?? message.mentions.repliedUser?.id),
            ...optional("content", referenced?.content || undefined),
          },
        }
      : {}),
    attachments: message.attachments.map((attachment) => ({
      id: attachment.id,
      name: attachment.name,
      url: attachment.url,
      sizeBytes: attachment.size,
      ...optional("contentType", attachment.contentType ?? undefined),
    })),
    botRoleIds: message.guild && mentionedRoleIds.length > 0 ? await botRoleIdsIn(message.guild) : [],
  };
}

function channelKindOf(message: Message): ChannelKind {
  const channel = message.channel;
  if (channel.type === ChannelType.DM) return "dm";
  if (channel.isThread()) return "thread";
  return GUILD_TEXT_CHANNELS.has(channel.type) ? "guild" : "unsupported";
}

/** The bot's own member is normally cached from GUILD_CREATE; asking Discord is the fallback. */
async function botRoleIdsIn(guild: Guild): Promise<string[]> {
  const me = guild.members.me ?? (await guild.members.fetchMe().catch(() => null));
  // The @everyone role shares the guild's id; it never counts as addressing the bot.
  return me ? [...me.roles.cache.keys()].filter((id) => id !== guild.id) : [];
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
