import { describe, expect, it } from "vitest";
import { findMatches, findWhitespaceInsensitiveMatch, lineNumberAt } from "./text-match.js";

describe("findMatches", () => {
  it("finds non-overlapping occurrences in order", () => {
    expect(findMatches("aaaa", "aa")).toEqual([0, 2]);
    expect(findMatches("x y x", "x")).toEqual([0, 4]);
    expect(findMatches("abc", "z")).toEqual([]);
    expect(findMatches("abc", "")).toEqual([]);
  });
});

describe("findWhitespaceInsensitiveMatch", () => {
  it("finds text that differs only in whitespace and returns its offset", () => {
    const haystack = "one\n\tif (a) {\r\n\t\treturn;\n\t}\n";
    expect(findWhitespaceInsensitiveMatch(haystack, "if (a) {\n    return;\n}")).toBe(haystack.indexOf("if"));
    expect(findWhitespaceInsensitiveMatch(haystack, "if(a){return;}")).toBe(haystack.indexOf("if"));
  });

  it("returns undefined for no match or an all-whitespace needle", () => {
    expect(findWhitespaceInsensitiveMatch("abc", "abd")).toBeUndefined();
    expect(findWhitespaceInsensitiveMatch("a b", "  \n")).toBeUndefined();
  });
});

describe("lineNumberAt", () => {
  it("counts line breaks before the offset", () => {
    const text = "a\nbb\nccc";
    expect(lineNumberAt(text, 0)).toBe(1);
    expect(lineNumberAt(text, 1)).toBe(1);
    expect(lineNumberAt(text, 2)).toBe(2);
    expect(lineNumberAt(text, text.indexOf("ccc"))).toBe(3);
  });
});
