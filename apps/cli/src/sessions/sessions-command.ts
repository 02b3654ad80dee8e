import type { Store } from "@hermes/store";
import { booleanOption, stringOption, type ParsedCommand } from "../cli/command-spec.js";
import { parseGroupArgs } from "../cli/parse-command-line.js";
import { settle } from "../cli/settle.js";
import { formatGroupHelp } from "../cli/usage.js";
import { SESSIONS_GROUP } from "./sessions-spec.js";

export const SESSIONS_USAGE = formatGroupHelp(SESSIONS_GROUP);

interface SessionsIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  store: Pick<Store, "sessions" | "messages" | "usage">;
}

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 500;

/** `hermes sessions …` from its arguments: what the bot has been talking about, read from the state database. */
export function runSessionsCommand(args: readonly string[], io: SessionsIo): Promise<number> {
  return settle(parseGroupArgs(SESSIONS_GROUP, args), io, (command) => executeSessionsCommand(command, io));
}

/** Runs a `hermes sessions` command line that already fits `SESSIONS_GROUP`. */
export function executeSessionsCommand(command: ParsedCommand, io: SessionsIo): Promise<number> {
  const json = booleanOption(command.values, "json");
  if (command.spec.name === "show") return show(command.positionals[0] ?? "", io, json);
  return list(command, io, json);
}

async function list(command: ParsedCommand, io: SessionsIo, json: boolean): Promise<number> {
  const userText = stringOption(command.values, "user");
  const limitText = stringOption(command.values, "limit");
  const at = userText?.indexOf(":") ?? -1;
  if (userText !== undefined && (at <= 0 || at === userText.length - 1)) return usageError(io, `--user must be <platform:userId>, e.g. telegram:42.`);
  if (limitText !== undefined && !/^\d+$/.test(limitText)) return usageError(io, `--limit must be a whole number.`);
  const user = userText === undefined ? undefined : { platform: userText.slice(0, at), userId: userText.slice(at + 1) };
  const limit = Math.min(MAX_LIMIT, limitText === undefined ? DEFAULT_LIMIT : Number(limitText));
  const sessions = user ? await io.store.sessions.listForUser(user.platform, user.userId, limit) : await io.store.sessions.listRecent(limit);
  const counted = await Promise.all(sessions.map(async (session) => ({ session, messages: await io.store.messages.count(session.id) })));
  if (json) {
    io.stdout.write(`${JSON.stringify(counted.map(({ session, messages }) => ({ ...session, messages })), null, 2)}\n`);
    return 0;
  }
  if (sessions.length === 0) {
    io.stdout.write("No conversations yet.\n");
    return 0;
  }
  for (const { session, messages } of counted) {
    const when = new Date(session.updatedAt).toISOString().slice(0, 16).replace("T", " ");
    const title = printable(session.title ?? "").slice(0, 60);
    io.stdout.write(`${session.id}  ${when}  ${session.status.padEnd(6)}  ${String(messages).padStart(4)} msgs  ${session.key}${title ? `  "${title}"` : ""}\n`);
  }
  return 0;
}

function usageError(io: SessionsIo, problem: string): number {
  io.stderr.write(`${problem}\n\n${SESSIONS_USAGE}\n`);
  return 2;
}

async function show(id: string, io: SessionsIo, json: boolean): Promise<number> {
  const session = await io.store.sessions.get(id);
  if (!session) {
    io.stderr.write(`No session with id ${printable(id)}.\n`);
    return 1;
  }
  const usage = await io.store.usage.forSession(id);
  if (json) {
    const messages = (await io.store.messages.list(id)).map((stored) => stored.message);
    io.stdout.write(`${JSON.stringify({ session, usage, messages }, null, 2)}\n`);
    return 0;
  }
  io.stdout.write(`${session.key} (${session.status}${session.parentId ? `, continues ${session.parentId}` : ""})\n`);
  io.stdout.write(`${usage.runs} answers, ${usage.inputTokens} tokens in, ${usage.outputTokens} out, $${usage.costUsd.toFixed(4)}\n\n`);
  for (const stored of await io.store.messages.list(id)) {
    io.stdout.write(`${stored.message.role.padEnd(10)} ${printable(describe(stored.message))}\n`);
  }
  return 0;
}

function describe(message: Awaited<ReturnType<Store["messages"]["history"]>>[number]): string {
  if (message.role === "user") {
    return typeof message.content === "string" ? message.content : message.content.map((p) => (p.type === "text" ? p.text : "[image]")).join("");
  }
  if (message.role === "assistant") {
    return message.content.map((p) => (p.type === "text" ? p.text : p.type === "toolCall" ? `[calls ${p.name}]` : "")).join("");
  }
  return `[${message.toolName} result] ${message.content.map((p) => (p.type === "text" ? p.text : "[image]")).join("").slice(0, 300)}`;
}

// Transcripts hold model and user text: terminal control characters are not passed to the operator's terminal.
function printable(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, "?");
}
