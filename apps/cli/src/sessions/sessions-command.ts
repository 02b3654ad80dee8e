import type { Store } from "@hermes/store";

export const SESSIONS_USAGE = `Usage: hermes sessions <command>

Commands:
  list [--user <platform:userId>] [--limit N]   recent conversations (newest first)
  show <session-id>                              one conversation's transcript`;

interface SessionsIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  store: Pick<Store, "sessions" | "messages" | "usage">;
}

/** `hermes sessions …`: what the bot has been talking about, read from the state database. */
export async function runSessionsCommand(args: readonly string[], io: SessionsIo): Promise<number> {
  const [command, ...rest] = args;
  if (command === "list") return list(rest, io);
  if (command === "show" && rest.length === 1 && rest[0]) return show(rest[0], io);
  const helpAsked = command === undefined || command === "help";
  (helpAsked ? io.stdout : io.stderr).write(`${SESSIONS_USAGE}\n`);
  return helpAsked ? 0 : 2;
}

async function list(args: readonly string[], io: SessionsIo): Promise<number> {
  let user: { platform: string; userId: string } | undefined;
  let limit = 20;
  for (let i = 0; i < args.length; i += 2) {
    const flag = args[i];
    const value = args[i + 1];
    if (flag === "--user" && value !== undefined && value.includes(":")) {
      const at = value.indexOf(":");
      user = { platform: value.slice(0, at), userId: value.slice(at + 1) };
    } else if (flag === "--limit" && value !== undefined && /^\d+$/.test(value)) {
      limit = Math.min(500, Number(value));
    } else {
      io.stderr.write(`${SESSIONS_USAGE}\n`);
      return 2;
    }
  }
  const sessions = user ? await io.store.sessions.listForUser(user.platform, user.userId, limit) : await io.store.sessions.listRecent(limit);
  if (sessions.length === 0) {
    io.stdout.write("No conversations yet.\n");
    return 0;
  }
  for (const session of sessions) {
    const messages = await io.store.messages.count(session.id);
    const when = new Date(session.updatedAt).toISOString().slice(0, 16).replace("T", " ");
    const title = printable(session.title ?? "").slice(0, 60);
    io.stdout.write(`${session.id}  ${when}  ${session.status.padEnd(6)}  ${String(messages).padStart(4)} msgs  ${session.key}${title ? `  "${title}"` : ""}\n`);
  }
  return 0;
}

async function show(id: string, io: SessionsIo): Promise<number> {
  const session = await io.store.sessions.get(id);
  if (!session) {
    io.stderr.write(`No session with id ${id}.\n`);
    return 1;
  }
  const usage = await io.store.usage.forSession(id);
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
