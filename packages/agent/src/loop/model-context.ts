import type { Context, Message, Tool, UserMessage } from "@mariozechner/pi-ai";

/**
 * What one model call is sent: the transcript with this turn's recalled memory right before the user's message, and
 * an optional tail (a nudge, or a cut-off draft and the request to continue it) that is never stored.
 */
export function modelContext(
  messages: Message[],
  parts: { systemPrompt: string; tools: Tool[]; input: UserMessage; ephemeralContext?: string; tail: readonly Message[] },
): Context {
  let withEphemeral = messages;
  const at = parts.ephemeralContext ? messages.indexOf(parts.input) : -1;
  if (at >= 0 && parts.ephemeralContext) {
    withEphemeral = [...messages.slice(0, at), { role: "user", content: parts.ephemeralContext, timestamp: parts.input.timestamp }, ...messages.slice(at)];
  }
  const all = parts.tail.length > 0 ? [...withEphemeral, ...parts.tail] : withEphemeral;
  return { systemPrompt: parts.systemPrompt, messages: all, ...(parts.tools.length > 0 ? { tools: parts.tools } : {}) };
}
