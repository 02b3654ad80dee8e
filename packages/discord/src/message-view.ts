/** Where a Discord message was posted, as far as the gateway cares. */
export type ChannelKind = "dm" | "guild" | "thread" | "unsupported";

export interface AttachmentView {
  id: string;
  name: string;
  url: string;
  sizeBytes: number;
  contentType?: string;
}

/**
 * The parts of a discord.js Message that normalization needs, as plain data: normalization stays a pure function
 * that tests can feed without a live client, and only `viewOfMessage` knows discord.js's object graph.
 */
export interface DiscordMessageView {
  id: string;
  /** An ordinary chat message (plain or reply); joins, pins, "thread created" and other system notices are not. */
  isChat: boolean;
  channelId: string;
  channelKind: ChannelKind;
  channelName?: string;
  /** The text channel (or forum) a thread belongs to. */
  parentChannelId?: string;
  guildId?: string;
  guildName?: string;
  author: { id: string; name: string; isBot: boolean };
  content: string;
  createdAt: number;
  mentionedUserIds: readonly string[];
  mentionedRoleIds: readonly string[];
  /** `@everyone` or `@here`. */
  mentionsEveryone: boolean;
  reference?: { messageId: string; authorId?: string; content?: string };
  attachments: readonly AttachmentView[];
  /** Roles the bot holds in the message's guild (a mention of one addresses the bot). */
  botRoleIds: readonly string[];
}
