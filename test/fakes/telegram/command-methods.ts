import type { BotCommand } from "grammy/types";
import { error, objectParam, ok, type ApiAnswer, type Method, type Params } from "./api-answer.js";
import type { BotApiState } from "./bot-api-state.js";

const COMMAND_NAME = /^[a-z0-9_]{1,32}$/;
const MAX_COMMANDS = 100;
const LANGUAGE_CODE = /^([a-z]{2})?$/;
const SCOPES_WITHOUT_CHAT: ReadonlySet<string> = new Set(["default", "all_private_chats", "all_group_chats", "all_chat_administrators"]);

/** setMyCommands and getMyCommands, a menu per scope and language as Telegram keeps them. */
export const COMMAND_METHODS: Record<string, Method> = {
  setMyCommands: (state, params) => setMyCommands(state, params),
  getMyCommands: (state, params) => {
    const where = readWhere(params);
    if (!where.ok) return where.answer;
    return ok(state.commandLists.find((list) => list.scope === where.scope && list.languageCode === where.languageCode)?.commands ?? []);
  },
};

function setMyCommands(state: BotApiState, params: Params): ApiAnswer {
  const commands = Array.isArray(params.commands) ? (params.commands as BotCommand[]) : undefined;
  if (!commands) return error(400, "Bad Request: commands must be an array");
  if (commands.length > MAX_COMMANDS) return error(400, "Bad Request: too many commands");
  for (const command of commands) {
    if (!COMMAND_NAME.test(String(command.command))) return error(400, "Bad Request: BOT_COMMAND_INVALID");
    const description = String(command.description ?? "");
    if (description.length < 1 || description.length > 256) return error(400, "Bad Request: BOT_COMMAND_DESCRIPTION_INVALID");
  }
  const where = readWhere(params);
  if (!where.ok) return where.answer;
  const index = state.commandLists.findIndex((list) => list.scope === where.scope && list.languageCode === where.languageCode);
  if (index !== -1) state.commandLists.splice(index, 1);
  state.commandLists.push({ scope: where.scope, languageCode: where.languageCode, commands });
  if (where.scope === "default" && where.languageCode === "") state.commands = commands;
  return ok(true);
}

function readWhere(params: Params): { ok: true; scope: string; languageCode: string } | { ok: false; answer: ApiAnswer } {
  const languageCode = params.language_code === undefined ? "" : String(params.language_code);
  if (!LANGUAGE_CODE.test(languageCode)) return { ok: false, answer: error(400, "Bad Request: invalid language code specified") };
  if (params.scope === undefined) return { ok: true, scope: "default", languageCode };
  const scope = objectParam(params.scope);
  const type = typeof scope?.type === "string" ? scope.type : "";
  if (SCOPES_WITHOUT_CHAT.has(type)) return { ok: true, scope: type, languageCode };
  if ((type === "chat" || type === "chat_administrators") && scope?.chat_id !== undefined) return { ok: true, scope: `${type}:${String(scope.chat_id)}`, languageCode };
  if (type === "chat_member" && scope?.chat_id !== undefined && scope.user_id !== undefined) return { ok: true, scope: `${type}:${String(scope.chat_id)}:${String(scope.user_id)}`, languageCode };
  return { ok: false, answer: error(400, "Bad Request: invalid scope specified") };
}
