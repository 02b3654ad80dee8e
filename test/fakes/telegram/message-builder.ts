import type { Chat, Message, MessageEntity, PhotoSize, User } from "grammy/types";

export interface FakeUser {
  id: number;
  first_name: string;
  last_name?: string;
  username?: string;
  is_bot?: boolean;
}

/** A file a user attaches; `advertisedSize: null` leaves file_size out, a number states a size other than the real one. */
export interface FakeUpload {
  content: Buffer;
  name?: string;
  mimeType?: string;
  advertisedSize?: number | null;
  /** Serve the download without content-length, so only the bytes themselves tell its size. */
  hideLength?: boolean;
}

export interface UserMessageOptions {
  chat?: Chat;
  from?: FakeUser;
  text?: string;
  caption?: string;
  /** Forum topic (message_thread_id) the message is posted in. */
  topic?: number;
  replyTo?: Message;
  photo?: FakeUpload;
  document?: FakeUpload;
  /** A voice note (Telegram's `voice`: OGG/Opus, no file name), `mimeType` default audio/ogg. */
  voice?: FakeUpload;
}

export const ADA: FakeUser = { id: 7, first_name: "Ada", last_name: "Lovelace", username: "ada" };

export function privateChat(user: FakeUser): Chat.PrivateChat {
  return { id: user.id, type: "private", first_name: user.first_name, ...(user.username ? { username: user.username } : {}) };
}

export function groupChat(id: number, title: string): Chat.GroupChat {
  return { id, type: "group", title };
}

export function forumChat(id: number, title: string): Chat.SupergroupChat {
  return { id, type: "supergroup", title, is_forum: true };
}

export function channelChat(id: number, title: string): Chat.ChannelChat {
  return { id, type: "channel", title };
}

export function toUser(user: FakeUser): User {
  return { ...user, is_bot: user.is_bot ?? false };
}

/** The entities Telegram's clients attach: @mentions anywhere and a leading /command. Offsets count UTF-16 units. */
export function entitiesFor(text: string): MessageEntity[] {
  const entities: MessageEntity[] = [];
  const command = /^\/[A-Za-z0-9_]+(?:@[A-Za-z0-9_]+)?/.exec(text);
  if (command) entities.push({ type: "bot_command", offset: 0, length: command[0].length });
  for (const match of text.matchAll(/(?<![\w@])@[A-Za-z0-9_]{3,32}/g)) {
    entities.push({ type: "mention", offset: match.index, length: match[0].length });
  }
  return entities;
}

export function photoSizes(fileId: string, uniqueId: string, size: number | undefined): PhotoSize[] {
  // Telegram lists every size it made; the largest comes last.
  const sizes: Array<[number, number]> = [
    [90, 60],
    [320, 213],
    [1280, 853],
  ];
  return sizes.map(([width, height], index) => {
    const last = index === sizes.length - 1;
    const photo: PhotoSize = { file_id: last ? fileId : `${fileId}-thumb${index}`, file_unique_id: `${uniqueId}-${index}`, width, height };
    if (last && size !== undefined) photo.file_size = size;
    return photo;
  });
}
