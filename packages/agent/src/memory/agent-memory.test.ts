import { describe, expect, it } from "vitest";
import { scrubbedDeltas, scrubMemoryFences } from "./agent-memory.js";

describe("scrubMemoryFences", () => {
  it("keeps an answer that mentions the fence tag without closing it", () => {
    expect(scrubMemoryFences("The tag `<memory-context>` marks memory; the answer is 42.")).toBe(
      "The tag `` marks memory; the answer is 42.",
    );
  });

  it("still removes a closed fence", () => {
    expect(scrubMemoryFences("Hi <memory-context>recalled notes</memory-context>there")).toBe("Hi there");
  });
});

describe("scrubbedDeltas", () => {
  it("releases the text of an unclosed span at flush, on the step it is flushed for", () => {
    const seen: Array<[string, number]> = [];
    const deltas = scrubbedDeltas((delta, info) => seen.push([delta, info.step]));
    deltas.onTextDelta?.("Use <memory-", { step: 1 });
    deltas.onTextDelta?.("context> for memory; done.", { step: 1 });
    deltas.flush(2);
    expect(seen).toEqual([
      ["Use ", 1],
      [" for memory; done.", 2],
    ]);
  });
});
