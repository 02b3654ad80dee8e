import {
  channelPayload,
  isThread,
  memberPayload,
  rolePayload,
  userPayload,
  type FakeChannel,
  type FakeGuildRecord,
  type FakeUser,
  type Json,
} from "./payloads.js";

export interface FakeFile {
  name: string;
  data: Buffer | string;
  contentType?: string;
  /** The size the message claims (Discord's payload can be trusted, a hostile one not); defaults to the real size. */
  declaredSize?: number;
}

export interface PostOptions {
  attachments?: FakeFile[];
  /** Id of the message this one replies to. */
  replyTo?: string;
  /** Whether the reply mentions the author replied to (the Discord client's default: yes). */
  pingRepliedAuthor?: boolean;
}

export interface FakeGuild {
  id: string;
  name: string;
  /** Channel ids by name. */
  channels: Record<string, string>;
  /** Role ids by name. */
  roles: Record<string, string>;
}

export interface WorldDeps {
  nextId: () => string;
  now: () => number;
  /** http://127.0.0.1:PORT, for attachment URLs. */
  baseUrl: () => string;
  /** Sends a gateway event to the connected client (or queues it for a resume). */
  dispatch: (event: string, data: Json) => void;
}

/** Users, guilds, channels and messages of the fake Discord, and the gateway events their changes cause. */
export class FakeWorld {
  readonly bot: FakeUser;
  readonly guilds = new Map<string, FakeGuildRecord>();
  readonly channels = new Map<string, FakeChannel>();
  readonly messages = new Map<string, Json>();
  readonly files = new Map<string, { data: Buffer; contentType: string }>();
  private readonly users = new Map<string, FakeUser>();
  private readonly dmChannels = new Map<string, string>();

  constructor(
    private readonly deps: WorldDeps,
    botName: string,
  ) {
    this.bot = this.addUser(botName, { bot: true });
  }

  addUser(username: string, options: { bot?: boolean; globalName?: string } = {}): FakeUser {
    const user: FakeUser = { id: this.deps.nextId(), username, bot: options.bot ?? false, ...(options.globalName ? { globalName: options.globalName } : {}) };
    this.users.set(user.id, user);
    return user;
  }

  user(id: string): FakeUser | undefined {
    return this.users.get(id);
  }

  addGuild(options: { name: string; channels?: string[]; roles?: string[]; botRoles?: string[] }): FakeGuild {
    const record: FakeGuildRecord = { id: this.deps.nextId(), name: options.name, roles: [] };
    this.guilds.set(record.id, record);
    const guild: FakeGuild = { id: record.id, name: record.name, channels: {}, roles: {} };
    for (const name of options.roles ?? []) guild.roles[name] = this.addRole(record, name, false);
    for (const name of options.botRoles ?? []) guild.roles[name] = this.addRole(record, name, true);
    for (const name of options.channels ?? []) {
      const channel: FakeChannel = { id: this.deps.nextId(), type: 0, name, guildId: record.id };
      this.channels.set(channel.id, channel);
      guild.channels[name] = channel.id;
    }
    this.deps.dispatch("GUILD_CREATE", this.guildCreatePayload(record.id));
    return guild;
  }

  addChannel(guildId: string, name: string): string {
    const channel: FakeChannel = { id: this.deps.nextId(), type: 0, name, guildId };
    this.channels.set(channel.id, channel);
    this.deps.dispatch("CHANNEL_CREATE", channelPayload(channel, this.isoNow()));
    return channel.id;
  }

  addThread(parentId: string, name: string, type: 10 | 11 | 12 = 11): string {
    const parent = this.requireChannel(parentId);
    const thread: FakeChannel = { id: this.deps.nextId(), type, name, guildId: parent.guildId, parentId };
    this.channels.set(thread.id, thread);
    this.deps.dispatch("THREAD_CREATE", { ...channelPayload(thread, this.isoNow()), newly_created: true });
    return thread.id;
  }

  dmChannelFor(user: FakeUser): FakeChannel {
    const existing = this.dmChannels.get(user.id);
    if (existing) return this.requireChannel(existing);
    const channel: FakeChannel = { id: this.deps.nextId(), type: 1, recipient: user };
    this.channels.set(channel.id, channel);
    this.dmChannels.set(user.id, channel.id);
    return channel;
  }

  guildCreatePayload(guildId: string): Json {
    const guild = this.guilds.get(guildId);
    if (!guild) throw new Error(`discord fake: no guild ${guildId}`);
    const channels = [...this.channels.values()].filter((c) => c.guildId === guildId);
    const now = this.isoNow();
    return {
      id: guild.id,
      name: guild.name,
      icon: null,
      owner_id: this.bot.id,
      unavailable: false,
      large: false,
      member_count: 2,
      joined_at: now,
      features: [],
      roles: [rolePayload({ id: guild.id, name: "@everyone" }, 0), ...guild.roles.map((role, i) => rolePayload(role, i + 1))],
      channels: channels.filter((c) => !isThread(c)).map((c) => channelPayload(c, now)),
      threads: channels.filter(isThread).map((c) => channelPayload(c, now)),
      members: [memberPayload(this.bot, guild.roles.filter((r) => r.botHas).map((r) => r.id), now)],
      emojis: [],
      stickers: [],
      presences: [],
      voice_states: [],
      stage_instances: [],
      guild_scheduled_events: [],
      soundboard_sounds: [],
      premium_tier: 0,
      verification_level: 0,
      default_message_notifications: 0,
      explicit_content_filter: 0,
      mfa_level: 0,
      nsfw_level: 0,
      system_channel_flags: 0,
      afk_timeout: 300,
      preferred_locale: "en-US",
    };
  }

  /** Creates a message as Discord would store it, and announces it on the gateway. */
  createMessage(channelId: string, author: FakeUser, content: string, options: PostOptions & { mentionIds?: string[]; components?: Json[] } = {}): Json {
    const channel = this.requireChannel(channelId);
    const referenced = options.replyTo === undefined ? undefined : this.messages.get(options.replyTo);
    if (options.replyTo !== undefined && !referenced) throw new Error(`discord fake: no message ${options.replyTo} to reply to`);
    const mentionIds = options.mentionIds ?? [...content.matchAll(/<@!?(\d+)>/g)].map((m) => m[1] ?? "");
    const repliedAuthor = referenced ? (referenced.author as Json).id : undefined;
    if (typeof repliedAuthor === "string" && options.mentionIds === undefined && options.pingRepliedAuthor !== false) mentionIds.push(repliedAuthor);
    const now = this.isoNow();
    const message: Json = {
      id: this.deps.nextId(),
      type: referenced ? 19 : 0,
      channel_id: channel.id,
      ...(channel.guildId ? { guild_id: channel.guildId, member: memberFields(now) } : {}),
      author: userPayload(author),
      content,
      timestamp: now,
      edited_timestamp: null,
      tts: false,
      mention_everyone: /@(everyone|here)\b/.test(content),
      mentions: unique(mentionIds).flatMap((id) => {
        const user = this.users.get(id);
        return user ? [userPayload(user)] : [];
      }),
      mention_roles: unique([...content.matchAll(/<@&(\d+)>/g)].map((m) => m[1] ?? "")),
      attachments: (options.attachments ?? []).map((file) => this.storeFile(channel.id, file)),
      embeds: [],
      components: options.components ?? [],
      pinned: false,
      flags: 0,
      ...(referenced
        ? { message_reference: { type: 0, message_id: referenced.id, channel_id: channel.id, ...(channel.guildId ? { guild_id: channel.guildId } : {}) }, referenced_message: referenced }
        : {}),
    };
    this.messages.set(message.id as string, message);
    this.deps.dispatch("MESSAGE_CREATE", channel.type === 1 ? { ...message, channel_type: 1 } : message);
    return message;
  }

  /** Changes a stored message as an edit does, and announces it on the gateway (MESSAGE_UPDATE). */
  updateMessage(id: string, changes: { content?: string; components?: Json[] }): Json {
    const message = this.messages.get(id);
    if (!message) throw new Error(`discord fake: no message ${id}`);
    const updated: Json = { ...message, ...changes, edited_timestamp: this.isoNow() };
    this.messages.set(id, updated);
    const channel = this.requireChannel(updated.channel_id as string);
    this.deps.dispatch("MESSAGE_UPDATE", channel.type === 1 ? { ...updated, channel_type: 1 } : updated);
    return updated;
  }

  requireChannel(id: string): FakeChannel {
    const channel = this.channels.get(id);
    if (!channel) throw new Error(`discord fake: no channel ${id}`);
    return channel;
  }

  private addRole(guild: FakeGuildRecord, name: string, botHas: boolean): string {
    const role = { id: this.deps.nextId(), name, botHas };
    guild.roles.push(role);
    return role.id;
  }

  private storeFile(channelId: string, file: FakeFile): Json {
    const id = this.deps.nextId();
    const data = typeof file.data === "string" ? Buffer.from(file.data) : file.data;
    const contentType = file.contentType ?? "application/octet-stream";
    const filePath = `/attachments/${channelId}/${id}/${encodeURIComponent(file.name)}`;
    this.files.set(filePath, { data, contentType });
    const url = `${this.deps.baseUrl()}${filePath}`;
    return { id, filename: file.name, size: file.declaredSize ?? data.length, url, proxy_url: url, content_type: contentType };
  }

  private isoNow(): string {
    return new Date(this.deps.now()).toISOString();
  }
}

function memberFields(joinedAt: string): Json {
  return { roles: [], nick: null, joined_at: joinedAt, deaf: false, mute: false, flags: 0 };
}

function unique(ids: string[]): string[] {
  return [...new Set(ids.filter((id) => id.length > 0))];
}
