import { describe, expect, it } from "vitest";
import { scanMarkdownLines } from "./markdown-lines.js";
import { continuationLooksLikeFence, findSplitPoints, type SplitRank } from "./split-points.js";

function pointsOf(text: string, rank: SplitRank, insideSpans = false): number[] {
  const points = findSplitPoints(text, scanMarkdownLines(text));
  const found: number[] = [];
  let high = text.length;
  for (;;) {
    const point = points.latest(rank, 0, high, insideSpans);
    if (point === undefined) return found.reverse();
    found.push(point);
    high = point - 1;
  }
}

describe("findSplitPoints", () => {
  it("ranks paragraph ends, line ends, sentence ends and spaces", () => {
    const text = "One. Two\nthree\n\nfour";
    expect(pointsOf(text, "paragraph")).toEqual([text.indexOf("three") + 5]);
    expect(pointsOf(text, "line")).toEqual([text.indexOf("\n")]);
    expect(pointsOf(text, "sentence")).toEqual([4]);
    expect(pointsOf(text, "space")).toEqual([4]);
  });

  it("treats the ends of code blocks and the line before a heading as paragraph ends", () => {
    const text = "intro\n```\ncode\n```\nafter\n## Heading";
    expect(pointsOf(text, "paragraph")).toEqual([text.indexOf("\n"), text.indexOf("```\nafter") + 3, text.indexOf("\n## ")]);
  });

  it("never ends a chunk right after an opening fence or right before a closing one", () => {
    const text = "```js\nfirst line\nsecond line\n```";
    const all = (["paragraph", "code-paragraph", "line"] as const).flatMap((rank) => pointsOf(text, rank));
    expect(all).toEqual([text.indexOf("first line") + "first line".length]);
  });

  it("ranks a blank line inside code below a paragraph and has no sentence ends in code", () => {
    const text = "```\na = 1. b\n\nc = 2\n```";
    expect(pointsOf(text, "code-paragraph")).toEqual([text.indexOf("b\n") + 1]);
    expect(pointsOf(text, "sentence")).toEqual([]);
    expect(pointsOf(text, "space")).toEqual([5, 7, 10, 15, 17]);
  });

  it("keeps split points inside code spans and links apart", () => {
    const text = "say `a b` and [c d](e)";
    expect(pointsOf(text, "space")).toEqual([3, 9, 13]);
    expect(pointsOf(text, "space", true)).toEqual([6, 16]);
  });

  it("skips indentation, trailing spaces, list numbers and cuts that would start a line with a fence run", () => {
    const text = "  1. item one  \nsee ``` here";
    expect(pointsOf(text, "space")).toEqual([4, 9, text.indexOf(" here")]);
    expect(pointsOf(text, "sentence")).toEqual([]);
  });
});

describe("continuationLooksLikeFence", () => {
  it("looks past spaces for a run of three backticks or tildes", () => {
    expect(continuationLooksLikeFence("a  ```b", 1)).toBe(true);
    expect(continuationLooksLikeFence("a ~~~", 1)).toBe(true);
    expect(continuationLooksLikeFence("a ``b", 1)).toBe(false);
  });
});
