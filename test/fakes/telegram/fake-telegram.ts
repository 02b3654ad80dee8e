import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { BotCommand, Chat, Message, Update, UserFromGetMe } from "grammy/types";
import { callMethod } from "./bot-api-methods.js";
import { BotApiState, type ApiError, type CallbackAnswer, type ChatAction, type CommandList, type RecordedCall, type SentMessage } from "./bot-api-state.js";
import { pressButton, type Presser } from "./button-press.js";
import { FloodControl, TELEGRAM_PUBLISHED_LIMITS, type RateLimitedCall, type TelegramRateLimits } from "./flood-control.js";
import { ADA, toUser, type FakeUpload, type FakeUser, type UserMessageOptions } from "./message-builder.js";
import { parseParams } from "./request-body.js";

export interface FakeTelegramOptions {
  token?: string;
  bot?: { id: number; first_name: string; username: string };
  /** The fake's clock, for flood waits and rate limits (default Date.now). */
  now?: () => number;
  /**
   * Telegram's send limits, enforced with 429 and retry_after (default: the published ones). `false` turns them off,
   * for tests that send bursts straight to the API on purpose; a partial object tunes them.
   */
  rateLimits?: false | Partial<TelegramRateLimits>;
}

export interface FakeTelegram {
  /** Pass to grammY as `client.apiRoot`. */
  readonly apiRoot: string;
  readonly token: string;
  readonly bot: UserFromGetMe;
  /** Every method call answered so far, in the order the answers went out. */
  readonly calls: readonly RecordedCall[];
  /** Messages the bot sent successfully. */
  readonly sent: readonly SentMessage[];
  readonly actions: readonly ChatAction[];
  /** Calls refused with 429 for going over the rate limits, in order (scripted flood waits are not among them). */
  readonly rateLimited: readonly RateLimitedCall[];
  /** Paths of files the bot downloaded. */
  readonly downloads: readonly string[];
  /** The default command menu (no scope, no language). */
  readonly commands: BotCommand[] | undefined;
  /** Every command menu registered, per scope and language (the latest registration of each). */
  readonly commandLists: readonly CommandList[];
  /** The menu for a scope type ("default", "all_private_chats", …) and language ("" for none), if registered. */
  commandsFor(scope: string, languageCode?: string): BotCommand[] | undefined;
  /** answerCallbackQuery calls that were accepted, in order. */
  readonly callbackAnswers: readonly CallbackAnswer[];
  /** The bot's message as it is now (after edits), with every version it had. */
  sentMessage(chatId: number | string, messageId: number): SentMessage | undefined;
  /** A user (default Ada, or a user id) presses the button with `callbackData` under a message the bot sent. */
  pressButton(sent: Pick<SentMessage, "chatId" | "result">, callbackData: string, presser?: Presser): { update: Update; callbackQueryId: string };
  /** Resolves with the first answered call of `method` (for which `when` holds) from now on, or already answered. */
  waitForCall(method: string, when?: (call: RecordedCall) => boolean): Promise<RecordedCall>;
  readonly webhook: { url: string; secret_token?: string; allowed_updates?: string[] } | undefined;
  /** A user posts a message (text, caption, photo, document, topic, reply); it is queued as an update. */
  userWrites(options: UserMessageOptions): { update: Update; message: Message };
  userEdits(message: Message, text: string): Update;
  memberJoins(chat: Chat, user?: FakeUser): Update;
  /** Opens a forum topic (a service message update); the opening message's id is the topic's thread id. */
  createTopic(chat: Chat, name: string): { update: Update; threadId: number };
  push(update: Omit<Update, "update_id"> & { update_id?: number }): Update;
  /** Registers a file for getFile and download without posting it, e.g. to test downloads directly. */
  addFile(upload: FakeUpload): { fileId: string; path: string };
  /** Every update below this offset has been confirmed by a getUpdates call. */
  confirmedOffset(): number;
  /** Sends an update again although it may be confirmed, as Telegram does when a confirmation got lost. */
  redeliver(update: Update): void;
  /** Resolves once a getUpdates call is held open (a long poll with nothing to return yet). */
  waitForHeldPoll(): Promise<void>;
  /** Resolves once the bot confirmed the update (a later getUpdates passed an offset above its id). */
  waitForConfirmation(update: Update): Promise<void>;
  /** POSTs an update to the webhook the bot registered (or `url`), with its secret unless told otherwise. */
  deliverToWebhook(update: Update, options?: { url?: string; secret?: string | null }): Promise<{ status: number; body: string }>;
  sentTo(chatId: number | string): SentMessage[];
  callsOf(method: string): RecordedCall[];
  /** The next `times` calls of `method` (for which `when` holds) fail with `error`. */
  failNext(method: string, error: ApiError, options?: { times?: number; when?: (params: Record<string, unknown>) => boolean }): void;
  /**
   * While `refused` (default true), answers every method 401 Unauthorized, as Telegram does for a revoked token;
   * held long polls end at once with that answer. `refuseToken(false)` accepts the token again.
   */
  refuseToken(refused?: boolean): void;
  /** Refuses `method` with 429 and retry_after for the next `seconds` of the fake's clock. */
  floodWait(method: string, seconds: number): void;
  close(): Promise<void>;
}

const DEFAULT_BOT = { id: 4242, first_name: "Hermes", username: "hermes_test_bot" };

/** A stand-in Telegram Bot API on 127.0.0.1: the methods the gateway uses, file downloads, and webhook delivery. */
export async function startFakeTelegram(options: FakeTelegramOptions = {}): Promise<FakeTelegram> {
  const token = options.token ?? "123456:TEST-token";
  const bot: UserFromGetMe = {
    ...(options.bot ?? DEFAULT_BOT),
    is_bot: true,
    can_join_groups: true,
    can_read_all_group_messages: false,
    supports_inline_queries: false,
    can_connect_to_business: false,
    has_main_web_app: false,
    has_topics_enabled: false,
    allows_users_to_create_topics: false,
    can_manage_bots: false,
    supports_join_request_queries: false,
  };
  const state = new BotApiState(bot, options.now ?? Date.now);
  if (options.rateLimits !== false) state.floodControl = new FloodControl({ ...TELEGRAM_PUBLISHED_LIMITS, ...options.rateLimits }, state.now);
  const sockets = new Set<Socket>();

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      handle(state, token, req, res, Buffer.concat(chunks).toString("utf8")).catch((error: unknown) => {
        if (!res.headersSent) respond(res, 500, { ok: false, error_code: 500, description: `fake telegram: ${String(error)}` });
      });
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;

  const fake: FakeTelegram = {
    apiRoot: `http://127.0.0.1:${port}`,
    token,
    bot,
    calls: state.calls,
    sent: state.sent,
    actions: state.actions,
    rateLimited: state.floodControl?.refused ?? [],
    downloads: state.downloads,
    get commands() {
      return state.commands;
    },
    commandLists: state.commandLists,
    commandsFor: (scope, languageCode = "") => state.commandLists.find((list) => list.scope === scope && list.languageCode === languageCode)?.commands,
    callbackAnswers: state.callbackAnswers,
    sentMessage: (chatId, messageId) => state.sentMessage(String(chatId), messageId),
    pressButton: (sent, callbackData, presser) => pressButton(state, sent, callbackData, presser),
    waitForCall: (method, when = () => true) => {
      const done = state.calls.find((call) => call.method === method && when(call));
      if (done) return Promise.resolve(done);
      return new Promise((resolve) => {
        const listener = (call: RecordedCall): void => {
          if (call.method !== method || !when(call)) return;
          state.callListeners.delete(listener);
          resolve(call);
        };
        state.callListeners.add(listener);
      });
    },
    get webhook() {
      return state.webhook;
    },
    userWrites: (messageOptions) => {
      const message = state.userMessage(messageOptions);
      return { update: state.pushMessage(message, message.chat.type === "channel" ? "channel_post" : "message"), message };
    },
    userEdits: (message, text) => state.pushMessage({ ...message, text, edit_date: Math.floor(state.now() / 1000) } as Message, "edited_message"),
    memberJoins: (chat, user = ADA) => {
      const joined = toUser(user);
      return state.pushMessage(state.record(chat, { from: joined, new_chat_members: [joined] } as Omit<Message, "message_id" | "date" | "chat">));
    },
    createTopic: (chat, name) => {
      const opening = state.createTopic(chat, name);
      return { update: state.pushMessage(opening), threadId: opening.message_id };
    },
    push: (update) => state.updates.push(update),
    addFile: (upload) => {
      const stored = state.addFile(upload, "documents");
      return { fileId: stored.fileId, path: stored.path };
    },
    confirmedOffset: () => state.updates.confirmedOffset(),
    redeliver: (update) => state.updates.replay(update),
    waitForHeldPoll: () => state.updates.waitForHeldPoll(),
    waitForConfirmation: (update) => state.updates.waitForConfirmation(update.update_id),
    deliverToWebhook: async (update, delivery = {}) => {
      const url = delivery.url ?? state.webhook?.url;
      if (!url) throw new Error("fake telegram: no webhook is set");
      const secret = delivery.secret === undefined ? state.webhook?.secret_token : delivery.secret;
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (secret !== undefined && secret !== null) headers["x-telegram-bot-api-secret-token"] = secret;
      const response = await fetch(url, { method: "POST", headers, body: JSON.stringify(update) });
      return { status: response.status, body: await response.text() };
    },
    sentTo: (chatId) => state.sent.filter((message) => message.chatId === String(chatId)),
    callsOf: (method) => state.calls.filter((call) => call.method === method),
    failNext: (method, error, failOptions = {}) => {
      state.scripted.push({ method, error, times: failOptions.times ?? 1, ...(failOptions.when ? { when: failOptions.when } : {}) });
    },
    refuseToken: (refused = true) => {
      state.tokenRefused = refused;
      if (refused) state.updates.closeAll();
    },
    floodWait: (method, seconds) => {
      state.floods.set(method, state.now() + seconds * 1000);
    },
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        state.updates.closeAll();
        server.close(() => resolve());
        // Long polls and keep-alive connections would otherwise hold close() open.
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
  return fake;
}

async function handle(state: BotApiState, token: string, req: http.IncomingMessage, res: http.ServerResponse, body: string): Promise<void> {
  const url = new URL(req.url ?? "/", "http://fake");
  const file = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
  if (file && req.method === "GET") {
    const stored = file[1] === token && !state.tokenRefused ? state.fileByPath(decodeURIComponent(file[2] ?? "")) : undefined;
    if (!stored) return respond(res, 404, { ok: false, error_code: 404, description: "Not Found" });
    state.downloads.push(stored.path);
    const headers: Record<string, string> = { "content-type": "application/octet-stream" };
    if (!stored.hideLength) headers["content-length"] = String(stored.content.length);
    res.writeHead(200, headers);
    // Two writes, so a client counting bytes sees them arrive in pieces.
    const half = Math.floor(stored.content.length / 2);
    res.write(stored.content.subarray(0, half));
    res.end(stored.content.subarray(half));
    return;
  }
  const call = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
  if (!call || (req.method !== "POST" && req.method !== "GET")) return respond(res, 404, { ok: false, error_code: 404, description: "Not Found" });
  if (call[1] !== token) return respond(res, 401, { ok: false, error_code: 401, description: "Unauthorized" });
  const params = parseParams(req.headers["content-type"], body, url.searchParams);
  if (!params) return respond(res, 400, { ok: false, error_code: 400, description: "Bad Request: unsupported request body" });
  const gone = new AbortController();
  res.on("close", () => gone.abort());
  const answer = await callMethod(state, call[2] ?? "", params, gone.signal);
  if (res.destroyed) return;
  respond(res, answer.ok ? 200 : answer.error_code, answer);
}

function respond(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}
