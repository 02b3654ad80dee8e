import { describe, expect, it } from "vitest";
import { conversationBuilder } from "./conversation-fixture.js";
import { summaryNoteMessage } from "./compression-note.js";
import { latestCompressionTime } from "./compression-note.js";
import { estimateContextTokens, estimateMessagesTokens, estimateTextTokens, IMAGE_TOKEN_ESTIMATE, estimateMessageTokens } from "./token-estimate.js";

describe("estimateTextTokens", () => {
  it("counts about four Latin characters per token", () => {
    expect(estimateTextTokens("")).toBe(0);
    expect(estimateTextTokens("abcd".repeat(100))).toBe(100);
  });

  it("counts CJK characters as about one token each, so Chinese conversations are not underestimated", () => {
    expect(estimateTextTokens("上下文压缩")).toBe(5);
    expect(estimateTextTokens("压缩 ok")).toBe(2 + 1);
  });

  it("counts an astral character (surrogate pair) once", () => {
    expect(estimateTextTokens("😀")).toBe(1);
  });
});

describe("estimateMessageTokens", () => {
  it("prices an image at a fixed figure rather than by its base64 size", () => {
    const tokens = estimateMessageTokens({ role: "user", content: [{ type: "image", data: "A".repeat(400_000), mimeType: "image/png" }], timestamp: 1 });
    expect(tokens).toBeGreaterThanOrEqual(IMAGE_TOKEN_ESTIMATE);
    expect(tokens).toBeLessThan(IMAGE_TOKEN_ESTIMATE + 10);
  });

  it("includes tool-call arguments of assistant messages", () => {
    const c = conversationBuilder();
    const small = estimateMessageTokens(c.calls({ id: "a", name: "terminal", args: { command: "ls" } }));
    const large = estimateMessageTokens(c.calls({ id: "a", name: "terminal", args: { command: "x".repeat(4_000) } }));
    expect(large - small).toBeGreaterThanOrEqual(990);
  });
});

describe("estimateContextTokens", () => {
  it("falls back to chars/4 of the system prompt and messages without provider usage", () => {
    const c = conversationBuilder();
    const messages = [c.user("a".repeat(400)), c.reply("b".repeat(400))];
    expect(estimateContextTokens(messages, "s".repeat(40))).toBe(10 + estimateMessagesTokens(messages));
  });

  it("uses the latest reply's provider count and estimates only what came after it", () => {
    const c = conversationBuilder();
    const after = c.user("c".repeat(400));
    const messages = [c.user("a"), c.reply("b", 9_000), after];
    expect(estimateContextTokens(messages, "system")).toBe(9_000 + estimateMessagesTokens([after]));
  });

  it("ignores provider counts from before the latest compression, which counted a prompt that is gone", () => {
    const c = conversationBuilder();
    const head = [c.user("goal"), c.reply("ok")];
    const staleTail = [c.user("q"), c.reply("a", 50_000)];
    const note = summaryNoteMessage({ summary: "## Goal\nx", replacedMessages: 10, timestamp: c.now() });
    const messages = [...head, note, ...staleTail];
    const compressedAt = latestCompressionTime(messages);
    expect(compressedAt).toBe(note.timestamp);
    expect(estimateContextTokens(messages, undefined, { usageValidAfter: compressedAt })).toBe(estimateMessagesTokens(messages));
    const fresh = c.reply("new", 3_000);
    expect(estimateContextTokens([...messages, fresh], undefined, { usageValidAfter: compressedAt })).toBe(3_000);
  });
});
