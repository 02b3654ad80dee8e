import { describe, expect, it } from "vitest";
import { StreamingContextScrubber } from "./stream-scrubber.js";

function scrubWhole(text: string): string {
  const scrubber = new StreamingContextScrubber();
  return scrubber.feed(text) + scrubber.flush();
}

function scrubChunks(chunks: readonly string[]): string {
  const scrubber = new StreamingContextScrubber();
  return chunks.map((chunk) => scrubber.feed(chunk)).join("") + scrubber.flush();
}

/** Deterministic PRNG (mulberry32) so a failing chunking can be reproduced from its seed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomChunks(text: string, random: () => number): string[] {
  const chunks: string[] = [];
  let at = 0;
  while (at < text.length) {
    const size = random() < 0.3 ? 1 : 1 + Math.floor(random() * 12);
    chunks.push(text.slice(at, at + size));
    at += size;
  }
  // Empty chunks happen in real streams (a delta with only a tool call); they must change nothing.
  if (random() < 0.5) chunks.splice(Math.floor(random() * chunks.length), 0, "");
  return chunks;
}

const CASES: Array<[input: string, expected: string]> = [
  ["no fence at all", "no fence at all"],
  ["Hi <memory-context>secret notes</memory-context> there", "Hi  there"],
  ["a<MEMORY-CONTEXT>x</Memory-Context>b<memory-context>y</memory-context>c", "abc"],
  ["before <memory-context>never closed", "before never closed"],
  ["The tag `<memory-context>` marks memory; the answer is 42.", "The tag `` marks memory; the answer is 42."],
  ["<memory-context>", ""],
  ["<memory-context>the whole answer", "the whole answer"],
  ["a <memory-context>b <MEMORY-context> c", "a b  c"],
  ["a <memory-context>b </memory-cont", "a b </memory-cont"],
  ["done <memory-context>x</memory-context> then <memory-context>open", "done  then open"],
  ["stray close </memory-context> tag", "stray close  tag"],
  ["a < b and <memory> and <memory-contex> and </memo>", "a < b and <memory> and <memory-contex> and </memo>"],
  ["ends with a partial <memory-cont", "ends with a partial <memory-cont"],
  ["ends with <", "ends with <"],
  ["<<memory-context>x</memory-context>>", "<>"],
  ["x <memory-context>a <memory-context> b</memory-context> y</memory-context> z", "x  y z"],
  ["日本語 <memory-context>メモ</memory-context> 😀 done", "日本語  😀 done"],
  ["inside <memory-context>has </memory and </memory-contex and <</memory-context>!", "inside !"],
];

describe("StreamingContextScrubber", () => {
  it.each(CASES)("scrubs %j", (input, expected) => {
    expect(scrubWhole(input)).toBe(expected);
  });

  it("gives the same output for every chunking of the stream", () => {
    const random = seeded(20240611);
    for (const [input, expected] of CASES) {
      for (let trial = 0; trial < 200; trial++) {
        const chunks = randomChunks(input, random);
        expect(scrubChunks(chunks), JSON.stringify(chunks)).toBe(expected);
      }
    }
  });

  it("never turns a non-empty answer that only mentions the tag into an empty one", () => {
    const answer = "The tag `<memory-context>` marks recalled memory; the answer is 42.";
    for (let cut = 0; cut <= answer.length; cut++) {
      const scrubbed = scrubChunks([answer.slice(0, cut), answer.slice(cut)]);
      expect(scrubbed).toBe("The tag `` marks recalled memory; the answer is 42.");
    }
  });

  it("handles a tag split at every possible position", () => {
    const input = "left <memory-context>hidden</memory-context> right";
    for (let cut = 0; cut <= input.length; cut++) {
      expect(scrubChunks([input.slice(0, cut), input.slice(cut)])).toBe("left  right");
    }
  });

  it("holds back only what could still be a tag and releases it once it is not", () => {
    const scrubber = new StreamingContextScrubber();
    expect(scrubber.feed("Hello <mem")).toBe("Hello ");
    expect(scrubber.feed("o")).toBe("");
    expect(scrubber.feed("s")).toBe("<memos");
    expect(scrubber.feed(" world")).toBe(" world");
    expect(scrubber.feed(" <memory-context>sec")).toBe(" ");
    expect(scrubber.feed("ret</memory-")).toBe("");
    expect(scrubber.feed("context> after")).toBe(" after");
    expect(scrubber.flush()).toBe("");
  });

  it("releases a held partial tag at flush and can be reused", () => {
    const scrubber = new StreamingContextScrubber();
    expect(scrubber.feed("cost < ")).toBe("cost < ");
    expect(scrubber.feed("</memory-cont")).toBe("");
    expect(scrubber.flush()).toBe("</memory-cont");
    expect(scrubber.feed("<memory-context>never")).toBe("");
    expect(scrubber.feed(" closed")).toBe("");
    expect(scrubber.flush()).toBe("never closed");
    expect(scrubber.feed("fresh")).toBe("fresh");
    expect(scrubber.flush()).toBe("");
  });
});
