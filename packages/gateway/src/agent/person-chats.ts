import type { Store } from "@hermes/store";

/** The sessions the person opened, and the recent messages scanned for the ones they joined later. */
const MAX_SESSIONS = 200;
const MAX_INBOUND_SCANNED = 5000;
const MAX_CHATS = 200;

export type PersonChatsStore = Pick<Store, "sessions" | "inbound">;

/**
 * The group chats (not DMs) the store saw the person in, newest first, at most 200: the chats of sessions they opened,
 * and of recent messages they sent (a shared session's record names only the person who opened it). It reads only.
 */
export async function groupChatsOf(store: PersonChatsStore, platform: string, userId: string): Promise<string[]> {
  const chats = new Set<string>();
  for (const session of await store.sessions.listForUser(platform, userId, MAX_SESSIONS)) {
    if (session.chatType !== "dm") chats.add(session.chatId);
  }
  for (const record of await store.inbound.recent(MAX_INBOUND_SCANNED)) {
    if (record.platform !== platform) continue;
    const sender = senderOf(record.payload);
    if (sender && sender.userId === userId && sender.chatType !== "dm") chats.add(sender.chatId);
  }
  return [...chats].slice(0, MAX_CHATS);
}

interface Sender {
  userId: string;
  chatId: string;
  chatType: string;
}

// Payloads are JSON written by this gateway, but possibly by an older version: anything unexpected is skipped.
function senderOf(payload: string): Sender | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (!isRecord(parsed) || !isRecord(parsed.user) || !isRecord(parsed.chat)) return undefined;
  const { id: userId } = parsed.user;
  const { id: chatId, type: chatType } = parsed.chat;
  if (typeof userId !== "string" || typeof chatId !== "string" || typeof chatType !== "string") return undefined;
  return { userId, chatId, chatType };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
