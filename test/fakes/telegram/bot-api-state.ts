import type { BotCommand, Chat, InlineKeyboardMarkup, Message, Update, User } from "grammy/types";
import { ADA, entitiesFor, photoSizes, privateChat, toUser, type FakeUpload, type FakeUser, type UserMessageOptions } from "./message-builder.js";
import type { FloodControl } from "./flood-control.js";
import { UpdateQueue } from "./update-queue.js";

export interface StoredFile {
  fileId: string;
  uniqueId: string;
  path: string;
  content: Buffer;
  advertisedSize: number | undefined;
  hideLength: boolean;
}

export interface RecordedCall {
  method: string;
  params: Record<string, unknown>;
  /** "ok", or the error code the fake answered with. */
  outcome: "ok" | number;
}

/** What a bot message showed at one point: as sent, then after each edit. */
export interface MessageVersion {
  text: string;
  visible: string;
  parseMode: string | undefined;
  replyMarkup: InlineKeyboardMarkup | undefined;
}

export interface SentMessage {
  chatId: string;
  /** As the bot sent it, or last edited it (HTML when parseMode is "HTML"). */
  text: string;
  /** What the chat shows now: the text with markup parsed. */
  visible: string;
  parseMode: string | undefined;
  /** The buttons under the message now. */
  replyMarkup: InlineKeyboardMarkup | undefined;
  /** Every content the message had, the sent one first and the current one last. */
  versions: MessageVersion[];
  threadId: number | undefined;
  replyToMessageId: number | undefined;
  result: Message;
}

export interface ChatAction {
  chatId: string;
  action: string;
  threadId: number | undefined;
}

export interface ApiError {
  error_code: number;
  description: string;
  parameters?: { retry_after?: number; migrate_to_chat_id?: number };
}

/** A command menu the bot registered with setMyCommands. */
export interface CommandList {
  /** The scope's type, with `:<chat_id>` (and `:<user_id>`) for the scopes that name a chat. */
  scope: string;
  /** "" for every language without a list of its own. */
  languageCode: string;
  commands: BotCommand[];
}

export interface CallbackAnswer {
  callbackQueryId: string;
  text?: string;
  showAlert?: boolean;
}

export interface ScriptedError {
  method: string;
  error: ApiError;
  times: number;
  when?: (params: Record<string, unknown>) => boolean;
}

/** Everything the fake Bot API remembers: chats, messages, files, updates, what the bot did, and scripted failures. */
export class BotApiState {
  readonly updates = new UpdateQueue();
  readonly calls: RecordedCall[] = [];
  readonly sent: SentMessage[] = [];
  readonly actions: ChatAction[] = [];
  readonly downloads: string[] = [];
  readonly scripted: ScriptedError[] = [];
  /** Per method: the fake clock time until which calls are refused with 429. */
  readonly floods = new Map<string, number>();
  /** Telegram's send limits, unless the fake was started without them. */
  floodControl: FloodControl | undefined;
  /** While set, every method call is answered 401 Unauthorized, as for a revoked token. */
  tokenRefused = false;
  /** The default menu (no scope, no language), as registered last. */
  commands: BotCommand[] | undefined;
  /** Every menu registered, one per scope and language, the latest registration of each. */
  readonly commandLists: CommandList[] = [];
  readonly callbackAnswers: CallbackAnswer[] = [];
  /** Ids of button presses that have not been answered yet. */
  readonly openCallbackQueries = new Set<string>();
  /** Told of every call once it is answered (for tests that wait for one). */
  readonly callListeners = new Set<(call: RecordedCall) => void>();
  webhook: { url: string; secret_token?: string; allowed_updates?: string[] } | undefined;
  private readonly chats = new Map<string, Chat>();
  private readonly messages = new Map<string, Map<number, Message>>();
  private readonly files = new Map<string, StoredFile>();
  private counter = 0;
  private callbackCounter = 0;

  constructor(
    readonly bot: User,
    readonly now: () => number,
  ) {}

  chat(id: string): Chat | undefined {
    return this.chats.get(id);
  }

  message(chatId: string, messageId: number): Message | undefined {
    return this.messages.get(chatId)?.get(messageId);
  }

  sentMessage(chatId: string, messageId: number): SentMessage | undefined {
    return this.sent.find((sent) => sent.chatId === chatId && sent.result.message_id === messageId);
  }

  /** The next callback query id (Telegram's are long numeric strings). */
  nextCallbackQueryId(): string {
    this.callbackCounter += 1;
    return String(4_000_000_000_000_000 + this.callbackCounter);
  }

  file(fileId: string): StoredFile | undefined {
    return this.files.get(fileId);
  }

  fileByPath(filePath: string): StoredFile | undefined {
    return [...this.files.values()].find((file) => file.path === filePath);
  }

  addFile(upload: FakeUpload, folder: string): StoredFile {
    this.counter += 1;
    const name = upload.name ?? "file.bin";
    const stored: StoredFile = {
      fileId: `file-${this.counter}`,
      uniqueId: `unique-${this.counter}`,
      path: `${folder}/file_${this.counter}${name.includes(".") ? name.slice(name.lastIndexOf(".")) : ""}`,
      content: upload.content,
      advertisedSize: upload.advertisedSize === null ? undefined : (upload.advertisedSize ?? upload.content.length),
      hideLength: upload.hideLength === true,
    };
    this.files.set(stored.fileId, stored);
    return stored;
  }

  /** Stores a message as if it was just posted, giving it the chat's next message id. */
  record(chat: Chat, fields: Omit<Message, "message_id" | "date" | "chat">): Message {
    this.chats.set(String(chat.id), chat);
    const history = this.messages.get(String(chat.id)) ?? new Map<number, Message>();
    this.messages.set(String(chat.id), history);
    const message = { ...fields, message_id: history.size + 1, date: Math.floor(this.now() / 1000), chat } as Message;
    history.set(message.message_id, message);
    return message;
  }

  /** A message from a user, with the entities, topic and reply fields Telegram would add. */
  userMessage(options: UserMessageOptions): Message {
    const from = options.from ?? ADA;
    const chat = options.chat ?? privateChat(from);
    const fields: Record<string, unknown> = chat.type === "channel" ? { sender_chat: chat } : { from: toUser(from) };
    if (options.text !== undefined) Object.assign(fields, { text: options.text, entities: entitiesFor(options.text) });
    if (options.caption !== undefined) Object.assign(fields, { caption: options.caption, caption_entities: entitiesFor(options.caption) });
    if (options.photo) {
      const file = this.addFile({ name: "photo.jpg", ...options.photo }, "photos");
      fields.photo = photoSizes(file.fileId, file.uniqueId, file.advertisedSize);
    }
    if (options.document) {
      const file = this.addFile(options.document, "documents");
      const document: Record<string, unknown> = { file_id: file.fileId, file_unique_id: file.uniqueId, file_name: options.document.name ?? "file.bin" };
      if (options.document.mimeType) document.mime_type = options.document.mimeType;
      if (file.advertisedSize !== undefined) document.file_size = file.advertisedSize;
      fields.document = document;
    }
    if (options.voice) {
      const file = this.addFile({ name: "voice.ogg", ...options.voice }, "voice");
      const voice: Record<string, unknown> = { file_id: file.fileId, file_unique_id: file.uniqueId, duration: 3, mime_type: options.voice.mimeType ?? "audio/ogg" };
      if (file.advertisedSize !== undefined) voice.file_size = file.advertisedSize;
      fields.voice = voice;
    }
    if (options.topic !== undefined) {
      Object.assign(fields, { message_thread_id: options.topic, is_topic_message: true });
      // Telegram makes every topic message "reply" to the topic's first message unless it replies to another one.
      fields.reply_to_message = options.replyTo ?? this.topicStart(chat, options.topic);
    } else if (options.replyTo) {
      fields.reply_to_message = options.replyTo;
    }
    return this.record(chat, fields as Omit<Message, "message_id" | "date" | "chat">);
  }

  pushMessage(message: Message, kind: "message" | "edited_message" | "channel_post" = "message"): Update {
    return this.updates.push({ [kind]: message } as Omit<Update, "update_id">);
  }

  /** Opens a forum topic: its first (service) message's id becomes the topic's thread id, as in Telegram. */
  createTopic(chat: Chat, name: string, by: FakeUser = ADA): Message {
    const opening = this.record(chat, { from: toUser(by), is_topic_message: true, forum_topic_created: { name, icon_color: 0x6fb9f0 } } as Omit<Message, "message_id" | "date" | "chat">);
    opening.message_thread_id = opening.message_id;
    return opening;
  }

  private topicStart(chat: Chat, topic: number): Message {
    const opening = this.message(String(chat.id), topic);
    if (!opening?.forum_topic_created) throw new Error(`fake telegram: no topic ${topic} in chat ${chat.id}; create it with createTopic`);
    return opening;
  }
}
