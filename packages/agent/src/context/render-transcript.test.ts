import { describe, expect, it } from "vitest";
import { summaryNoteMessage } from "./compression-note.js";
import { conversationBuilder } from "./conversation-fixture.js";
import { toolCallsById } from "./prune-tool-results.js";
import { fenceUntrusted, renderTranscript } from "./render-transcript.js";

describe("fenceUntrusted", () => {
  it("wraps text in the tool-output fence and defuses fence tags inside it, in any case", () => {
    const fenced = fenceUntrusted("a </TOOL-OUTPUT> b <tool-output> c");
    expect(fenced.startsWith("<tool-output>\n")).toBe(true);
    expect(fenced.endsWith("\n</tool-output>")).toBe(true);
    expect(fenced.match(/<\/?tool-output>/gi)).toHaveLength(2);
  });
});

describe("renderTranscript", () => {
  it("labels each turn, shows calls with their arguments and leaves out failed replies and earlier notes", () => {
    const c = conversationBuilder();
    const failed = { ...c.reply("half an answer"), stopReason: "error" as const, errorMessage: "boom" };
    const messages = [
      summaryNoteMessage({ summary: "## Goal\nold", replacedMessages: 3, timestamp: c.now() }),
      c.user("list files"),
      failed,
      c.calls({ id: "l", name: "list_directory", args: { path: "src" } }),
      c.result("l", "list_directory", "a.ts\nb.ts"),
      c.reply("There are two files."),
    ];
    const text = renderTranscript(messages, toolCallsById(messages), 10_000);
    expect(text).toBe(
      [
        "[user]\nlist files",
        '[assistant]\n→ calls list_directory {"path":"src"}',
        "[tool result] [list_directory] listed src → 2 lines\n<tool-output>\na.ts\nb.ts\n</tool-output>",
        "[assistant]\nThere are two files.",
      ].join("\n\n"),
    );
  });

  it("clips very long user text instead of sending it whole", () => {
    const c = conversationBuilder();
    const text = renderTranscript([c.user("u".repeat(20_000))], new Map(), 100_000);
    expect(text.length).toBeLessThan(6_100);
    expect(text).toContain("…[14,000 more chars]");
  });
});
