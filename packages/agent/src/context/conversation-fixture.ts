import type { AssistantMessage, Message, ToolCall, ToolResultMessage, UserMessage } from "@mariozechner/pi-ai";

/** Test helpers: hand-built transcripts with a deterministic clock. Not used by the library itself. */
export interface ConversationBuilder {
  now: () => number;
  user(text: string): UserMessage;
  reply(text: string, usageInput?: number): AssistantMessage;
  calls(...calls: Array<{ id: string; name: string; args: Record<string, unknown> }>): AssistantMessage;
  result(call: string, toolName: string, text: string, isError?: boolean): ToolResultMessage;
}

export function conversationBuilder(start = 1_000): ConversationBuilder {
  let clock = start;
  const now = (): number => {
    clock += 1;
    return clock;
  };
  const assistant = (content: AssistantMessage["content"], usageInput: number, stopReason: AssistantMessage["stopReason"]): AssistantMessage => ({
    role: "assistant",
    content,
    api: "faux",
    provider: "faux",
    model: "faux-1",
    usage: { input: usageInput, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: usageInput, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason,
    timestamp: now(),
  });
  return {
    now,
    user: (text) => ({ role: "user", content: text, timestamp: now() }),
    reply: (text, usageInput = 0) => assistant([{ type: "text", text }], usageInput, "stop"),
    calls: (...calls) =>
      assistant(
        calls.map((c): ToolCall => ({ type: "toolCall", id: c.id, name: c.name, arguments: c.args })),
        0,
        "toolUse",
      ),
    result: (call, toolName, text, isError = false) => ({
      role: "toolResult",
      toolCallId: call,
      toolName,
      content: [{ type: "text", text }],
      isError,
      timestamp: now(),
    }),
  };
}

/** Text of `lines` numbered lines, each about `width` characters. */
export function longOutput(label: string, lines: number, width = 60): string {
  return Array.from({ length: lines }, (_, i) => `${label} line ${i + 1} `.padEnd(width, "·")).join("\n");
}

export function messageText(message: Message): string {
  if (message.role === "user") {
    return typeof message.content === "string" ? message.content : message.content.map((b) => (b.type === "text" ? b.text : "")).join("");
  }
  if (message.role === "toolResult") return message.content.map((b) => (b.type === "text" ? b.text : "")).join("");
  return message.content.map((b) => (b.type === "text" ? b.text : b.type === "toolCall" ? `${b.name}(${JSON.stringify(b.arguments)})` : "")).join("");
}
