import type { CommandContext, CommandDefinition } from "./types.js";

async function resetSession(context: CommandContext, command: "new" | "reset"): Promise<string> {
  const busy = await context.store.inbound.unanswered(context.sessionKey);
  if (busy > 0) {
    await context.store.inbound.cancelQueued(context.sessionKey);
    await context.queue.stop(context.sessionKey);
  }
  const ended = await context.store.sessions.end(context.sessionKey);
  const base = { timestamp: context.now(), sessionKey: context.sessionKey, platform: context.message.platform, chatId: context.message.chat.id, userId: context.message.user.id };
  if (ended) {
    // Providers are isolated and time-limited there, so this never keeps the person from starting over.
    await context.memory?.endSession(ended.id, context.memory.scopeOf(context.message));
    await context.hooks.emit({ ...base, type: "session:end", sessionId: ended.id, reason: command });
    await context.hooks.emit({ ...base, type: "session:reset", sessionId: ended.id });
  }
  return ended
    ? "Started a new conversation. The previous one is kept and can still be searched."
    : "This is already a fresh conversation.";
}

/** Removes the last exchange (the last user message and everything after it); returns that user text. */
async function dropLastExchange(context: CommandContext): Promise<{ removed: number; userText?: string } | undefined> {
  const session = await context.store.sessions.active(context.sessionKey);
  if (!session) return undefined;
  const seq = await context.store.messages.lastUserSeq(session.id);
  if (seq === undefined) return undefined;
  const messages = await context.store.messages.list(session.id);
  const userMessage = messages.find((m) => m.seq === seq)?.message;
  const removed = await context.store.messages.truncateFrom(session.id, seq);
  let userText: string | undefined;
  if (userMessage?.role === "user") {
    userText = typeof userMessage.content === "string"
      ? userMessage.content
      : userMessage.content.map((part) => (part.type === "text" ? part.text : "")).join("");
  }
  return { removed, userText };
}

async function refuseWhileBusy(context: CommandContext, what: string): Promise<string | undefined> {
  const busy = await context.store.inbound.unanswered(context.sessionKey);
  return busy > 0 ? busyText(what) : undefined;
}

function busyText(what: string): string {
  return `I'm still answering a message, so I can't ${what} right now. Send /stop first if you want to interrupt me.`;
}

/**
 * Under the session lock (a run that holds it is waited for briefly), and only when no message is waiting: a
 * command never rewrites a turn a run is writing, and a queued message is not answered on a history changed under it.
 */
async function whenIdle<T>(context: CommandContext, what: string, work: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; reply: string }> {
  const locked = await context.withSessionLock(context.sessionKey, async () => {
    const refusal = await refuseWhileBusy(context, what);
    return refusal === undefined ? { ok: true as const, value: await work() } : { ok: false as const, reply: refusal };
  });
  return locked.ok ? locked.value : { ok: false, reply: busyText(what) };
}

export const sessionCommands: CommandDefinition[] = [
  {
    name: "new",
    usage: "/new",
    description: "start a fresh conversation (the old one stays searchable)",
    run: (context) => resetSession(context, "new"),
  },
  {
    name: "reset",
    usage: "/reset",
    description: "same as /new",
    run: (context) => resetSession(context, "reset"),
  },
  {
    name: "stop",
    usage: "/stop",
    description: "stop the answer in progress and drop queued messages",
    run: async (context) => {
      const busy = await context.store.inbound.unanswered(context.sessionKey);
      if (busy === 0) return "Nothing to stop: I'm not working on anything.";
      const dropped = await context.store.inbound.cancelQueued(context.sessionKey);
      await context.queue.stop(context.sessionKey);
      return dropped > 0 ? `Stopped. I also dropped ${dropped} queued message${dropped === 1 ? "" : "s"}.` : "Stopped.";
    },
  },
  {
    name: "undo",
    usage: "/undo",
    description: "forget your last message and my answer to it",
    run: async (context) => {
      const undone = await whenIdle(context, "undo", () => dropLastExchange(context));
      if (!undone.ok) return undone.reply;
      const dropped = undone.value;
      if (!dropped) return "There is nothing to undo yet.";
      return `Removed your last message and my reply (${dropped.removed} message${dropped.removed === 1 ? "" : "s"} in all).`;
    },
  },
  {
    name: "retry",
    usage: "/retry",
    description: "answer your last message again",
    run: async (context) => {
      const undone = await whenIdle(context, "retry", () => dropLastExchange(context));
      if (!undone.ok) return undone.reply;
      const dropped = undone.value;
      if (!dropped?.userText) return "There is no earlier message to retry.";
      // Outside the lock: the resubmitted message's run takes it like any other.
      const text = context.sharedSession ? dropped.userText.replace(/^\[[^\]\n]*\]\s*/, "") : dropped.userText;
      await context.resubmit(text);
      return "Retrying your last message…";
    },
  },
  {
    name: "compress",
    usage: "/compress",
    description: "summarise the conversation so far to free up context",
    run: async (context) => {
      const what = "compress the conversation";
      const refusal = await refuseWhileBusy(context, what);
      if (refusal) return refusal;
      // A summary takes a model call: it runs in the background so message intake is not held up meanwhile. It reads
      // the history inside the lock, so it builds on the latest turn, and runs of the session wait until it is done.
      void whenIdle(context, what, () => context.compress(context.sessionKey))
        .then((compressed) => (compressed.ok ? compressed.value : compressed.reply))
        .catch((error: unknown) => `Compression failed: ${error instanceof Error ? error.message : String(error)}`)
        .then((text) => context.followUp(text));
      return "Compressing the conversation…";
    },
  },
];
