import { describe, expect, it } from "vitest";
import { DROPPED_MARKER, droppedNoteMessage, latestCompressionTime, readCompressionNote, SUMMARY_MARKER, summaryNoteMessage, userRequestText } from "./compression-note.js";
import { conversationBuilder } from "./conversation-fixture.js";

describe("compression notes", () => {
  it("round-trips a summary, leaving the verbatim request out of the body", () => {
    const note = summaryNoteMessage({ summary: "## Goal\nship it", replacedMessages: 12, latestRequest: "please run\nthe tests", timestamp: 5 });
    expect(typeof note.content === "string" && note.content.startsWith(SUMMARY_MARKER)).toBe(true);
    expect(note.content).toContain("replaces 12 earlier messages");
    expect(note.content).toContain("> please run\n> the tests");
    expect(readCompressionNote(note)).toEqual({ kind: "summary", body: "## Goal\nship it", timestamp: 5 });
  });

  it("keeps the older summary in a dropped note and reads it back as the body", () => {
    const note = droppedNoteMessage({ replacedMessages: 1, previousSummary: "## Goal\nold", timestamp: 7 });
    expect(typeof note.content === "string" && note.content.startsWith(DROPPED_MARKER)).toBe(true);
    expect(note.content).toContain("1 earlier message could not be summarised");
    expect(readCompressionNote(note)).toEqual({ kind: "dropped", body: "## Goal\nold", timestamp: 7 });
    expect(readCompressionNote(droppedNoteMessage({ replacedMessages: 3, timestamp: 8 }))?.body).toBe("");
  });

  it("does not mistake ordinary messages for notes", () => {
    const c = conversationBuilder();
    expect(readCompressionNote(c.user("hello [Conversation summary — earlier messages were compressed]"))).toBeUndefined();
    expect(readCompressionNote(c.reply(SUMMARY_MARKER))).toBeUndefined();
    expect(userRequestText(c.user("  do it  "))).toBe("do it");
    expect(userRequestText(summaryNoteMessage({ summary: "s", replacedMessages: 2, timestamp: 1 }))).toBeUndefined();
  });

  it("finds the time of the latest compression", () => {
    const c = conversationBuilder();
    expect(latestCompressionTime([c.user("a")])).toBeUndefined();
    const first = summaryNoteMessage({ summary: "s", replacedMessages: 2, timestamp: 40 });
    const second = droppedNoteMessage({ replacedMessages: 2, timestamp: 90 });
    expect(latestCompressionTime([first, c.user("x"), second])).toBe(90);
  });
});
