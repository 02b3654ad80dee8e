import { describe, expect, it } from "vitest";
import { cleanEntry, fileTextOf, matchingEntries, normalizeEntry, parseEntries, renderedSize } from "./memory-entries.js";

describe("memory file format", () => {
  it("writes one § line per entry with a final newline, and nothing for no entries", () => {
    expect(fileTextOf(["prefers metric units", "lives in Lyon"])).toBe("§ prefers metric units\n§ lives in Lyon\n");
    expect(fileTextOf([])).toBe("");
  });

  it("reads back what it writes, multi-line entries and § inside an entry included", () => {
    const entries = ["deploys with:\n  make release\n\nthen tags the commit", "a line\n§ that starts with the marker", "plain"];
    expect(parseEntries(fileTextOf(entries))).toEqual(entries);
  });

  it("parses a hand-edited file: heading, blank lines, CRLF, missing space after §", () => {
    const text = "# My memory\r\n\r\n§ first\r\n\r\n§second\ncontinues here\n\n\n§   \n§ third\n";
    expect(parseEntries(text)).toEqual(["# My memory", "first", "second\ncontinues here", "third"]);
  });

  it("treats a file without any § as a single entry rather than losing it", () => {
    expect(parseEntries("just some notes\nover two lines\n")).toEqual(["just some notes\nover two lines"]);
    expect(parseEntries("")).toEqual([]);
    expect(parseEntries("\n \n")).toEqual([]);
  });

  it("counts the rendered size in characters, not bytes", () => {
    expect(renderedSize(["ab", "日本"])).toBe("§ ab\n§ 日本".length);
    expect(renderedSize(["😀"])).toBe(3);
  });

  it("cleans model content: trims, folds CRLF and drops a leading marker", () => {
    expect(cleanEntry("  § likes tea \r\n more ")).toBe("likes tea \n more");
    expect(cleanEntry("   ")).toBe("");
  });

  it("normalises case, width and whitespace for duplicate checks", () => {
    expect(normalizeEntry("  Uses   VIM\n daily ")).toBe(normalizeEntry("uses vim daily"));
    expect(normalizeEntry("ＡＢＣ")).toBe("abc");
  });

  it("matches exactly first, then by normalised text", () => {
    const entries = ["Prefers dark mode", "prefers short answers", "uses zsh"];
    expect(matchingEntries(entries, "Prefers")).toEqual([0]);
    expect(matchingEntries(entries, "prefers")).toEqual([1]);
    expect(matchingEntries(entries, "PREFERS")).toEqual([0, 1]);
    expect(matchingEntries(entries, "fish")).toEqual([]);
    expect(matchingEntries(entries, "  ")).toEqual([]);
  });
});
