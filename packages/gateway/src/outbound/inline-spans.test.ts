import { describe, expect, it } from "vitest";
import { protectedOffsets, protectedSpans } from "./inline-spans.js";

function spanTexts(line: string): string[] {
  return protectedSpans(line).map((span) => line.slice(span.start, span.end));
}

describe("protectedSpans", () => {
  it("finds code spans delimited by equal backtick runs", () => {
    expect(spanTexts("run `npm ci` and ``a ` b`` here")).toEqual(["`npm ci`", "``a ` b``"]);
  });

  it("treats an unmatched run as literal text", () => {
    expect(spanTexts("a ``` b `c d` e")).toEqual(["`c d`"]);
  });

  it("finds inline links, images and autolinks, but not links inside code", () => {
    expect(spanTexts("see [the docs](https://x.test/a b) and ![alt text](img.png) or <https://x.test/y>")).toEqual([
      "[the docs](https://x.test/a b)",
      "![alt text](img.png)",
      "<https://x.test/y>",
    ]);
    expect(spanTexts("`[not a](link)`")).toEqual(["`[not a](link)`"]);
  });
});

describe("protectedOffsets", () => {
  it("marks offsets strictly inside a span", () => {
    const mask = protectedOffsets("a `b c` d");
    expect([...mask]).toEqual([0, 0, 0, 1, 1, 1, 1, 0, 0, 0]);
  });
});
