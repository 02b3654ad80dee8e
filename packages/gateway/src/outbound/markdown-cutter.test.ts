import { describe, expect, it } from "vitest";
import { MarkdownCutter } from "./markdown-cutter.js";

describe("MarkdownCutter", () => {
  it("starts after leading blank lines but keeps indentation", () => {
    const cutter = new MarkdownCutter("\n  \n    code\n");
    expect(cutter.firstStart()).toBe(4);
    expect(cutter.contentEnd).toBe(12);
  });

  it("drops the separator a cut replaced: blank lines after a line break, spaces within a line", () => {
    const text = "one  two\n\n\n   three";
    const cutter = new MarkdownCutter(text);
    expect(cutter.nextStart(3)).toBe(5);
    expect(cutter.nextStart(8)).toBe(text.indexOf("   three"));
    expect(cutter.body(0, 5)).toBe("one");
  });

  it("ends a chunk at the whole text when it fits", () => {
    const cutter = new MarkdownCutter("short text  \n\n");
    expect(cutter.chooseEnd(0, 10)).toBe(10);
  });

  it("prefers a paragraph end that fills at least half the room", () => {
    const text = "aaaa bbbb.\n\ncccc dddd eeee ffff";
    const cutter = new MarkdownCutter(text);
    expect(cutter.chooseEnd(0, 20)).toBe(10);
    expect(cutter.chooseEnd(0, 24)).toBe(21);
  });

  it("cuts before a fence line rather than inside it when nothing better fits", () => {
    const text = "xxxxxxxxxx\n```python\ncode\n```";
    const cutter = new MarkdownCutter(text);
    expect(cutter.cutsFenceLine(14)).toBe(true);
    expect(cutter.cutsFenceLine(11)).toBe(false);
    expect(cutter.chooseEnd(0, 14)).toBe(10);

    // No split point before a closing fence: the hard cut would land inside it, so it moves in front of the line.
    const closing = new MarkdownCutter("```\nxxxxxxxxxx\n````");
    expect(closing.chooseEnd(4, 13)).toBe(14);
  });

  it("cuts mid-word between graphemes when there is no split point at all", () => {
    const cutter = new MarkdownCutter("ab❤️cdefgh");
    expect(cutter.chooseEnd(0, 3)).toBe(2);
  });

  it("reports the fence open at a position and the line starting there", () => {
    const text = "intro\n~~~sh\nls\n~~~";
    const cutter = new MarkdownCutter(text);
    expect(cutter.fenceAt(text.indexOf("ls"))).toEqual({ indent: "", marker: "~~~", info: "sh" });
    expect(cutter.fenceAt(text.length)).toBeNull();
    expect(cutter.lineStartingAt(6)?.kind).toBe("open");
    expect(cutter.lineStartingAt(7)).toBeUndefined();
  });
});
