import type { AssistantMessage, Message } from "@mariozechner/pi-ai";
import type { Store } from "@hermes/store";
import type { InboundMessage } from "../core/inbound.js";
import { newSessionFor } from "../core/session-key.js";
import type { ChatTurn } from "./chat-request.js";

/** Marks a caller's system message inside the transcript, where only the agent's own system prompt is a system prompt. */
export const CALLER_INSTRUCTIONS_PREFIX = "Instructions from the API caller:";

/**
 * A stateless request brings its conversation along: it becomes the transcript of the request's fresh session, so the
 * agent answers the last message with the earlier ones as its history (compression, search and repair included).
 */
export async function preloadHistory(store: Pick<Store, "sessions" | "messages">, message: InboundMessage, sessionKey: string, turns: readonly ChatTurn[], now: number): Promise<void> {
  const messages = turns.flatMap((turn) => transcriptMessage(turn, now));
  if (messages.length === 0) return;
  const { session } = await store.sessions.getOrCreateActive(newSessionFor(message, sessionKey));
  await store.messages.append(session.id, messages);
}

function transcriptMessage(turn: ChatTurn, timestamp: number): Message[] {
  if (turn.text.trim() === "") return [];
  if (turn.role === "user") return [{ role: "user", content: turn.text, timestamp }];
  if (turn.role === "system") return [{ role: "user", content: `${CALLER_INSTRUCTIONS_PREFIX}\n${turn.text}`, timestamp }];
  return [callerAssistantMessage(turn.text, timestamp)];
}

/** An answer the caller says the assistant gave; no model of ours wrote it, so it names none and cost nothing. */
function callerAssistantMessage(text: string, timestamp: number): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "text", text }],
    api: "openai-completions",
    provider: "api-caller",
    model: "api-caller",
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: "stop",
    timestamp,
  };
}
