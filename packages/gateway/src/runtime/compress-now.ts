import { THRASHING_MESSAGE } from "@hermes/agent";
import type { Store } from "@hermes/store";
import type { AgentPool } from "../agent/create-agent.js";
import type { HookPort } from "../core/ports.js";

/**
 * `/compress`: summarises the conversation now and continues it in a child session (the original stays searchable).
 * Called under the session lock (the command takes it), so the history read here is the latest and no run appends to
 * it while the summary is written.
 */
export async function compressSessionNow(store: Store, pool: AgentPool, sessionKey: string, hooks: HookPort): Promise<string> {
  const session = await store.sessions.active(sessionKey);
  if (!session) return "There is nothing to compress yet.";
  const history = await store.messages.history(session.id);
  if (history.length < 4) return "The conversation is still short; there is nothing worth compressing.";
  const compressor = pool.compressorFor(sessionKey);
  const memories = await pool.memory.managersOf(session.id);
  const result = await compressor.compress(history, {
    reason: "proactive",
    sessionId: session.id,
    signal: new AbortController().signal,
    // Sized for the model the conversation runs on (its /model override), like compression during a run.
    contextWindow: pool.modelFor(session.model).model.contextWindow,
    onPreCompress: (messages) => {
      for (const memory of memories) memory.onPreCompress(messages);
    },
  });
  if (!result) {
    const status = compressor.status();
    return status.thrashing ? (status.message ?? THRASHING_MESSAGE) : "There was nothing to compress.";
  }
  const child = await store.sessions.continueAsChild(session.id, session.title);
  await store.messages.append(child.id, result.messages);
  await hooks.emit({ type: "session:compress", timestamp: Date.now(), sessionKey, sessionId: child.id, parentSessionId: session.id });
  const how = result.fallback ? "dropped the oldest messages (the summary could not be written)" : "summarised the earlier messages";
  return `Done: I ${how}, saving about ${result.savedTokens.toLocaleString("en-US")} tokens. ${history.length} messages became ${result.messages.length}.`;
}
