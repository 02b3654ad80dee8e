/** JSON shapes of the Discord API (v10) that the fake produces; only the fields clients read. */
export type Json = Record<string, unknown>;

export interface FakeUser {
  id: string;
  username: string;
  globalName?: string;
  bot: boolean;
}

export interface FakeRole {
  id: string;
  name: string;
  /** The bot holds this role. */
  botHas: boolean;
}

export interface FakeChannel {
  id: string;
  /** 0 guild text, 1 DM, 11 public thread, 12 private thread, 10 announcement thread. */
  type: number;
  name?: string;
  guildId?: string;
  parentId?: string;
  /** For DMs: the user on the other end. */
  recipient?: FakeUser;
}

export interface FakeGuildRecord {
  id: string;
  name: string;
  roles: FakeRole[];
}

export function userPayload(user: FakeUser): Json {
  return {
    id: user.id,
    username: user.username,
    discriminator: "0",
    global_name: user.globalName ?? null,
    avatar: null,
    ...(user.bot ? { bot: true } : {}),
  };
}

export function channelPayload(channel: FakeChannel, createdAt: string): Json {
  if (channel.type === 1) return { id: channel.id, type: 1, last_message_id: null, recipients: channel.recipient ? [userPayload(channel.recipient)] : [] };
  const base: Json = {
    id: channel.id,
    type: channel.type,
    guild_id: channel.guildId,
    name: channel.name,
    parent_id: channel.parentId ?? null,
    rate_limit_per_user: 0,
    last_message_id: null,
    nsfw: false,
  };
  if (!isThread(channel)) return { ...base, position: 0, permission_overwrites: [], topic: null };
  return {
    ...base,
    owner_id: null,
    message_count: 0,
    member_count: 1,
    total_message_sent: 0,
    thread_metadata: { archived: false, auto_archive_duration: 1440, archive_timestamp: createdAt, locked: false },
  };
}

export function rolePayload(role: { id: string; name: string; managed?: boolean }, position: number): Json {
  return {
    id: role.id,
    name: role.name,
    color: 0,
    hoist: false,
    icon: null,
    unicode_emoji: null,
    position,
    permissions: "0",
    managed: role.managed ?? false,
    mentionable: true,
    flags: 0,
  };
}

export function memberPayload(user: FakeUser, roleIds: string[], joinedAt: string): Json {
  return { user: userPayload(user), nick: null, roles: roleIds, joined_at: joinedAt, deaf: false, mute: false, flags: 0 };
}

export function isThread(channel: FakeChannel): boolean {
  return channel.type === 10 || channel.type === 11 || channel.type === 12;
}
