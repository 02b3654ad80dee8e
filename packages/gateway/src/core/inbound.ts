/** Chat type of the session-key contract: a direct conversation, a group (or guild channel), or a broadcast channel. */
export type ChatType = "dm" | "group" | "channel";

export interface InboundAttachment {
  kind: "image" | "document" | "audio" | "video" | "other";
  name?: string;
  mimeType?: string;
  sizeBytes?: number;
  /** Where the adapter saved it (inside the workspace) once downloaded; absent when not downloaded. */
  localPath?: string;
  /** Platform reference (file id, URL) for adapters that download lazily. */
  ref?: string;
  /** Set by the gateway once it dealt with a voice or audio file, so a message routed again is not transcribed twice. */
  transcription?: "transcribed" | "failed" | "not_enabled";
}

/**
 * A message from any platform, normalized by its adapter. Everything downstream — dedup, authorization, routing,
 * hooks, the agent — sees only this shape.
 */
export interface InboundMessage {
  platform: string;
  chat: { id: string; type: ChatType; title?: string };
  /** Forum topic / thread the message belongs to, when the platform has them. */
  threadId?: string;
  user: { id: string; name?: string; isBot?: boolean };
  /** Unique per platform (for Telegram the update id, Slack the event id, …): the deduplication key. */
  messageId: string;
  text: string;
  attachments: InboundAttachment[];
  /** The message this one replies to, and whether that message was the bot's. */
  replyTo?: { messageId: string; fromBot: boolean; text?: string };
  /** The bot was @mentioned (or addressed by name) in the text. */
  mentionedBot: boolean;
  /** Milliseconds since the epoch. */
  timestamp: number;
  /** Platform message id to reply to, when it differs from `messageId` (Telegram's message_id vs update_id). */
  replyToId?: string;
  /**
   * Set when the message is a press of a button the bot sent (`OutboundButton`): `text` is the button's value,
   * `messageId` the press's own unique id, and `action.messageId` the id (as `send` returned it) of the bot's message
   * the button was on.
   */
  action?: { messageId: string };
}

/** The first identifying field a message lacks (empty or not a string), if any. */
export function missingIdentity(message: InboundMessage): "messageId" | "chat.id" | "user.id" | undefined {
  const blank = (value: unknown): boolean => typeof value !== "string" || value.trim() === "";
  if (blank(message.messageId)) return "messageId";
  if (blank(message.chat.id)) return "chat.id";
  if (blank(message.user.id)) return "user.id";
  return undefined;
}
