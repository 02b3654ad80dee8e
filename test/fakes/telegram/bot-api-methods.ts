import type { Message } from "grammy/types";
import { error, objectParam, ok, optionalInt, type ApiAnswer, type Method, type Params } from "./api-answer.js";
import type { BotApiState, RecordedCall } from "./bot-api-state.js";
import { COMMAND_METHODS } from "./command-methods.js";
import { EDIT_METHODS } from "./edit-methods.js";
import { readInlineMarkup } from "./inline-markup.js";
import { readMessageText } from "./message-text.js";

export type { ApiAnswer } from "./api-answer.js";

const UNAUTHORIZED: ApiAnswer = { ok: false, error_code: 401, description: "Unauthorized" };

const METHODS: Record<string, Method> = {
  getMe: (state) => ok(state.bot),
  getUpdates: async (state, params, signal) => {
    if (state.webhook) return error(409, "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first");
    const allowed = Array.isArray(params.allowed_updates) ? params.allowed_updates.map(String) : undefined;
    const updates = await state.updates.take(optionalInt(params.offset), optionalInt(params.limit) ?? 100, optionalInt(params.timeout) ?? 0, allowed, signal);
    return ok(updates);
  },
  setWebhook: (state, params) => {
    if (typeof params.url !== "string" || params.url === "") return error(400, "Bad Request: bad webhook: URL must be provided");
    state.webhook = { url: params.url };
    if (typeof params.secret_token === "string") state.webhook.secret_token = params.secret_token;
    if (Array.isArray(params.allowed_updates)) state.webhook.allowed_updates = params.allowed_updates.map(String);
    return ok(true);
  },
  deleteWebhook: (state) => {
    state.webhook = undefined;
    return ok(true);
  },
  getWebhookInfo: (state) => ok({ url: state.webhook?.url ?? "", has_custom_certificate: false, pending_update_count: 0 }),
  sendMessage: (state, params) => sendMessage(state, params),
  sendChatAction: (state, params) => {
    const chatId = String(params.chat_id ?? "");
    if (!state.chat(chatId)) return error(400, "Bad Request: chat not found");
    state.actions.push({ chatId, action: String(params.action), threadId: optionalInt(params.message_thread_id) });
    return ok(true);
  },
  getFile: (state, params) => {
    const file = state.file(String(params.file_id ?? ""));
    if (!file) return error(400, "Bad Request: invalid file_id");
    if (file.content.length > 20 * 1024 * 1024) return error(400, "Bad Request: file is too big");
    const result: Record<string, unknown> = { file_id: file.fileId, file_unique_id: file.uniqueId, file_path: file.path };
    if (file.advertisedSize !== undefined) result.file_size = file.advertisedSize;
    return ok(result);
  },
  ...COMMAND_METHODS,
  ...EDIT_METHODS,
};

/** Runs a Bot API method, after any scripted failure, flood wait or rate limit that applies to it. */
export async function callMethod(state: BotApiState, method: string, params: Params, signal: AbortSignal): Promise<ApiAnswer> {
  const refused = state.tokenRefused ? UNAUTHORIZED : undefined;
  const answered = refused ?? scriptedFailure(state, method, params) ?? overLimit(state, method, params) ?? (await runMethod(state, method, params, signal));
  // A long poll that was held while the token got refused is refused too.
  const answer = state.tokenRefused ? UNAUTHORIZED : answered;
  if (answer.ok) state.floodControl?.record(method, params);
  const call: RecordedCall = { method, params, outcome: answer.ok ? "ok" : answer.error_code };
  state.calls.push(call);
  for (const listener of [...state.callListeners]) listener(call);
  return answer;
}

function runMethod(state: BotApiState, method: string, params: Params, signal: AbortSignal): Promise<ApiAnswer> | ApiAnswer {
  const run = METHODS[method];
  return run ? run(state, params, signal) : error(404, "Not Found: method not found");
}

function overLimit(state: BotApiState, method: string, params: Params): ApiAnswer | undefined {
  const refusal = state.floodControl?.check(method, params);
  return refusal ? { ok: false, ...refusal } : undefined;
}

function scriptedFailure(state: BotApiState, method: string, params: Params): ApiAnswer | undefined {
  const until = state.floods.get(method);
  if (until !== undefined) {
    const left = until - state.now();
    if (left > 0) return { ok: false, error_code: 429, description: `Too Many Requests: retry after ${Math.ceil(left / 1000)}`, parameters: { retry_after: Math.ceil(left / 1000) } };
    state.floods.delete(method);
  }
  const index = state.scripted.findIndex((entry) => entry.method === method && (entry.when?.(params) ?? true));
  const entry = state.scripted[index];
  if (!entry) return undefined;
  entry.times -= 1;
  if (entry.times <= 0) state.scripted.splice(index, 1);
  return { ok: false, ...entry.error };
}

function sendMessage(state: BotApiState, params: Params): ApiAnswer {
  const chatId = String(params.chat_id ?? "");
  const chat = state.chat(chatId);
  if (!chat) return error(400, "Bad Request: chat not found");
  const read = readMessageText(params, "Bad Request: message is too long");
  if (!read.ok) return read.answer;
  const { raw, visible, parseMode } = read.text;
  const markup = readInlineMarkup(params.reply_markup);
  if (!markup.ok) return error(400, markup.error);
  const threadId = optionalInt(params.message_thread_id);
  if (threadId !== undefined && !state.message(chatId, threadId)?.forum_topic_created) return error(400, "Bad Request: message thread not found");
  const reply = objectParam(params.reply_parameters);
  const replyToId = reply ? optionalInt(reply.message_id) : undefined;
  const original = replyToId !== undefined ? state.message(chatId, replyToId) : undefined;
  if (replyToId !== undefined && !original && reply?.allow_sending_without_reply !== true) return error(400, "Bad Request: message to be replied not found");

  const fields: Record<string, unknown> = { from: state.bot, text: visible };
  if (threadId !== undefined) Object.assign(fields, { message_thread_id: threadId, is_topic_message: true });
  if (original) fields.reply_to_message = original;
  if (markup.markup) fields.reply_markup = markup.markup;
  const result = state.record(chat, fields as Omit<Message, "message_id" | "date" | "chat">);
  const version = { text: raw, visible, parseMode, replyMarkup: markup.markup };
  state.sent.push({ chatId, ...version, versions: [{ ...version }], threadId, replyToMessageId: replyToId, result });
  return ok(result);
}
