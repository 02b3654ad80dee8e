import { describe, expect, it } from "vitest";
import { codePointBoundary, isHighSurrogate, isLowSurrogate, safeCutIndex } from "./utf16.js";

describe("surrogate helpers", () => {
  it("recognises the halves of a pair", () => {
    const smile = "😀";
    expect(smile.length).toBe(2);
    expect(isHighSurrogate(smile.charCodeAt(0))).toBe(true);
    expect(isLowSurrogate(smile.charCodeAt(1))).toBe(true);
    expect(isHighSurrogate("a".charCodeAt(0))).toBe(false);
  });

  it("moves a cut that splits a pair one unit back", () => {
    expect(codePointBoundary("a😀b", 2)).toBe(1);
    expect(codePointBoundary("a😀b", 3)).toBe(3);
    expect(codePointBoundary("a😀b", 0)).toBe(0);
    expect(codePointBoundary("a😀b", 4)).toBe(4);
  });
});

describe("safeCutIndex", () => {
  it("keeps a cut that already falls between graphemes", () => {
    expect(safeCutIndex("abcdef", 0, 3)).toBe(3);
    expect(safeCutIndex("abc", 0, 10)).toBe(3);
  });

  it.each([
    ["a variation selector", "ab❤️cd", 3, 2],
    ["a skin tone", "ab👍🏽cd", 4, 2],
    ["a ZWJ family", "ab👨‍👩‍👧cd", 6, 2],
    ["a flag", "ab🇩🇪cd", 4, 2],
    ["a combining accent", "abe\u0301cd", 3, 2],
  ])("does not cut inside %s", (_name, text, cut, expected) => {
    expect(safeCutIndex(text, 0, cut)).toBe(expected);
  });

  it("falls back to a code-point boundary when one grapheme fills the whole room", () => {
    const family = "👨‍👩‍👧";
    expect(safeCutIndex(family, 0, 4)).toBe(3);
  });

  it("cuts a lone astral character only when nothing else fits, so the caller still advances", () => {
    expect(safeCutIndex("😀", 0, 1)).toBe(1);
  });

  it("never returns a point at or before the floor unless the cut is", () => {
    expect(safeCutIndex("xx❤️", 2, 3)).toBe(3);
    expect(safeCutIndex("abc", 2, 2)).toBe(2);
  });
});
