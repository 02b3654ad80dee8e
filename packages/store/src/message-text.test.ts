import type { AssistantMessage, UserMessage } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { estimateTokens, parseStoredMessage, searchableText } from "./message-text.js";
import { assistantMessage, toolResultMessage, userMessage } from "./test-fixtures.js";

describe("searchableText", () => {
  it("takes user text, assistant text blocks and tool result text", () => {
    expect(searchableText(userMessage("plain question"))).toBe("plain question");
    const multipart: UserMessage = {
      role: "user",
      content: [
        { type: "text", text: "look at this" },
        { type: "image", data: "aGVsbG8=", mimeType: "image/png" },
        { type: "text", text: "and this" },
      ],
      timestamp: 1,
    };
    expect(searchableText(multipart)).toBe("look at this\nand this");
    const assistant: AssistantMessage = {
      ...assistantMessage(""),
      content: [
        { type: "thinking", thinking: "private reasoning" },
        { type: "text", text: "Here you go." },
        { type: "toolCall", id: "c1", name: "web_search", arguments: { query: "secret args" } },
      ],
    };
    expect(searchableText(assistant)).toBe("Here you go.");
    expect(searchableText(toolResultMessage("fetched page text"))).toBe("fetched page text");
  });
});

describe("estimateTokens", () => {
  it("uses the provider's output count for assistant messages that have one", () => {
    expect(estimateTokens(assistantMessage("short", 42))).toBe(42);
  });

  it("estimates four characters per token otherwise", () => {
    expect(estimateTokens(userMessage("x".repeat(10)))).toBe(3);
    expect(estimateTokens(assistantMessage("y".repeat(8)))).toBe(2);
    expect(estimateTokens(toolResultMessage(""))).toBe(0);
    const withCall: AssistantMessage = {
      ...assistantMessage(""),
      content: [{ type: "toolCall", id: "c1", name: "think", arguments: { thought: "abc" } }],
    };
    expect(estimateTokens(withCall)).toBe(Math.ceil(("think".length + JSON.stringify({ thought: "abc" }).length) / 4));
  });

  it("counts an image as a fixed amount rather than its encoded size", () => {
    const image: UserMessage = { role: "user", content: [{ type: "image", data: "A".repeat(400_000), mimeType: "image/png" }], timestamp: 1 };
    expect(estimateTokens(image)).toBe(1_000);
  });
});

describe("parseStoredMessage", () => {
  it("round-trips a message and rejects anything else", () => {
    expect(parseStoredMessage(JSON.stringify(userMessage("hi")), "s#0")).toEqual(userMessage("hi"));
    expect(() => parseStoredMessage(JSON.stringify({ role: "system" }), "s#1")).toThrow(/s#1/);
    expect(() => parseStoredMessage("null", "s#2")).toThrow(/s#2/);
  });
});
