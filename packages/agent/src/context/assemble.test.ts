import type { Message } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { MISSING_RESULT_TEXT, repairHistory } from "../history/repair.js";
import { assembleCompressed } from "./assemble.js";
import { summaryNoteMessage } from "./compression-note.js";
import { conversationBuilder, messageText } from "./conversation-fixture.js";

describe("assembleCompressed", () => {
  it("puts the note between head and tail", () => {
    const c = conversationBuilder();
    const head = [c.user("goal"), c.reply("ok")];
    const tail = [c.user("q"), c.reply("a")];
    const note = summaryNoteMessage({ summary: "## Goal\ng", replacedMessages: 4, timestamp: c.now() });
    const { messages, repairs } = assembleCompressed({ head, note, tail }, c.now);
    expect(messages).toEqual([...head, note, ...tail]);
    expect(repairs).toEqual([]);
  });

  it("repairs what the cut broke: an unanswered call in the head and an orphaned result in the tail", () => {
    const c = conversationBuilder();
    const head = [c.user("goal"), c.calls({ id: "h", name: "terminal", args: { command: "ls" } })];
    const tail = [c.result("gone", "terminal", "orphan"), c.user("q"), c.reply("a")];
    const note = summaryNoteMessage({ summary: "## Goal\ng", replacedMessages: 4, timestamp: c.now() });
    const { messages, repairs } = assembleCompressed({ head, note, tail }, c.now);
    expect(repairs.map((r) => r.kind).sort()).toEqual(["missing_result_stubbed", "orphan_result_removed"]);
    expect(messageText(messages[2] as Message)).toBe(MISSING_RESULT_TEXT);
    expect(messages.some((m) => m.role === "toolResult" && m.toolCallId === "gone")).toBe(false);
    expect(repairHistory(messages).notes).toEqual([]);
  });
});
