import { describe, expect, it } from "vitest";
import { buttonPressMessage, readButtonPress } from "./button-press.js";
import { messageBlocks, SECTION_TEXT_LIMIT, sectionTexts } from "./message-blocks.js";

describe("message blocks", () => {
  it("makes no blocks without buttons", () => {
    expect(messageBlocks("hi", true, undefined)).toBeUndefined();
    expect(messageBlocks("hi", true, [])).toBeUndefined();
  });

  it("keeps a short text in one section", () => {
    expect(sectionTexts("short")).toEqual(["short"]);
    expect(sectionTexts("")).toEqual([" "]);
  });

  it("closes a code block cut between sections and reopens it in the next", () => {
    const code = "```\n" + Array.from({ length: 400 }, (_, i) => `console.log(${i});`).join("\n") + "\n```";
    const parts = sectionTexts(code);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(SECTION_TEXT_LIMIT);
      expect((part.match(/```/g) ?? []).length % 2).toBe(0);
    }
  });

  it("never cuts an escaped character or a surrogate pair in a text without breaks", () => {
    for (const filler of ["&amp;", "😀", "a&lt;"]) {
      const text = filler.repeat(Math.ceil((SECTION_TEXT_LIMIT * 2) / filler.length));
      const parts = sectionTexts(text);
      expect(parts.join("")).toBe(text);
      for (const part of parts) {
        expect(part.length).toBeLessThanOrEqual(SECTION_TEXT_LIMIT);
        expect(part).not.toMatch(/&(a|am|amp|l|lt|g|gt)?$/);
        expect(part.charCodeAt(part.length - 1) >= 0xd800 && part.charCodeAt(part.length - 1) <= 0xdbff).toBe(false);
      }
    }
  });
});

describe("button presses", () => {
  const press = (extra: Record<string, unknown> = {}) => ({
    type: "block_actions",
    user: { id: "U1" },
    channel: { id: "C1" },
    container: { type: "message", message_ts: "20.2", channel_id: "C1" },
    actions: [{ type: "button", action_id: "hermes_btn_0", value: "/approve x", action_ts: "21.000500" }],
    ...extra,
  });

  it("answers a top-level channel message in a thread on it, as a typed channel message is", () => {
    const read = readButtonPress(press());
    if (!read.ok) throw new Error(read.ignored);
    expect(buttonPressMessage(read.press, 0)).toMatchObject({ chat: { id: "C1", type: "group" }, threadId: "20.2", messageId: "act21.000500.U1", timestamp: 21_001, action: { messageId: "20.2" } });
  });

  it("keeps a DM's thread only when the message is in one", () => {
    const inThread = readButtonPress(press({ channel: { id: "D1" }, container: { type: "message", message_ts: "20.2", channel_id: "D1", thread_ts: "19.1" } }));
    const topLevel = readButtonPress(press({ channel: { id: "D1" }, container: { type: "message", message_ts: "20.2", channel_id: "D1" } }));
    if (!inThread.ok || !topLevel.ok) throw new Error("not read");
    expect(buttonPressMessage(inThread.press, 0)).toMatchObject({ chat: { type: "dm" }, threadId: "19.1" });
    expect(buttonPressMessage(topLevel.press, 0).threadId).toBeUndefined();
  });

  it("ignores payloads that are not a press of a button with a value", () => {
    expect(readButtonPress({ type: "shortcut" })).toEqual({ ok: false, ignored: "payload type shortcut" });
    expect(readButtonPress(press({ actions: [{ type: "button", action_id: "x" }] }))).toEqual({ ok: false, ignored: "no button with a value" });
    expect(readButtonPress(press({ user: null }))).toEqual({ ok: false, ignored: "no user, channel or message" });
    expect(readButtonPress(press({ container: {}, message: { ts: "30.3" } }))).toMatchObject({ ok: true, press: { messageTs: "30.3" } });
  });
});
