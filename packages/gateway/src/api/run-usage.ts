import type { Store } from "@hermes/store";
import type { RunUsage } from "./openai-format.js";

/** The active session of a key and what it has used so far. */
export interface UsageSnapshot {
  sessionId?: string;
  usage: RunUsage;
}

const NONE: RunUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

export async function usageSnapshot(store: Pick<Store, "sessions" | "usage">, sessionKey: string): Promise<UsageSnapshot> {
  const session = await store.sessions.active(sessionKey);
  if (session === undefined) return { usage: NONE };
  return { sessionId: session.id, usage: await store.usage.forSession(session.id) };
}

/**
 * What one request used: the session's usage since the request began (one request per session runs at a time). A
 * session that changed meanwhile (a /new, a compression) is new, so all of its usage is the request's.
 */
export function usageBetween(before: UsageSnapshot, after: UsageSnapshot): RunUsage {
  if (before.sessionId !== after.sessionId) return after.usage;
  const less = (key: keyof RunUsage): number => Math.max(0, after.usage[key] - before.usage[key]);
  return { inputTokens: less("inputTokens"), outputTokens: less("outputTokens"), cacheReadTokens: less("cacheReadTokens"), cacheWriteTokens: less("cacheWriteTokens") };
}
