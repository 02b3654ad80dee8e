import { isCommandEventType, type HookEvent, type HookEventType } from "./events.js";

const CONVERSATION = {
  sessionKey: "agent:main:cli:dm:hook-test",
  platform: "cli",
  chatId: "hook-test",
  chatType: "dm",
  userId: "hook-tester",
  userName: "Hook Tester",
} as const;

const RUN = { ...CONVERSATION, runId: "hook-test-run", model: "test/sample-model" } as const;

/** A realistic event of each type, for trying a hook out (`hermes hooks test`) without a running gateway. */
export function sampleHookEvent(type: HookEventType, timestamp: number): HookEvent {
  if (isCommandEventType(type)) {
    return { type, timestamp, ...CONVERSATION, command: type.slice("command:".length), args: "" };
  }
  switch (type) {
    case "gateway:startup":
      return { type, timestamp, platforms: ["cli"] };
    case "gateway:shutdown":
      return { type, timestamp, reason: "SIGTERM" };
    case "message:received":
      return { type, timestamp, ...CONVERSATION, text: "Hello from hermes hooks test", messageId: "hook-test-1", attachmentCount: 0 };
    case "message:sent":
      return { type, timestamp, ...CONVERSATION, text: "Hello! How can I help?", messageId: "hook-test-2", replyToId: "hook-test-1" };
    case "session:start":
    case "session:reset":
      return { type, timestamp, ...CONVERSATION };
    case "session:end":
      return { type, timestamp, ...CONVERSATION, reason: "idle" };
    case "session:compress":
      return { type, timestamp, ...CONVERSATION, messagesBefore: 120, messagesAfter: 14, tokensBefore: 96_000, tokensAfter: 12_000 };
    case "agent:start":
      return { type, timestamp, ...RUN, text: "Hello from hermes hooks test" };
    case "agent:step":
      return { type, timestamp, ...RUN, step: 1, text: "Let me look that up.", toolCalls: [{ id: "call-1", name: "web_search" }] };
    case "agent:end":
      return { type, timestamp, ...RUN, stopReason: "completed", steps: 2, durationMs: 1800, text: "Here is what I found." };
    case "tool:before":
      return { type, timestamp, ...RUN, step: 1, toolName: "web_search", toolCallId: "call-1", arguments: { query: "hermes" } };
    case "tool:after":
      return {
        type,
        timestamp,
        ...RUN,
        step: 1,
        toolName: "web_search",
        toolCallId: "call-1",
        arguments: { query: "hermes" },
        result: "1. Hermes — messenger of the gods",
        isError: false,
        durationMs: 420,
        status: "ok",
      };
  }
}
