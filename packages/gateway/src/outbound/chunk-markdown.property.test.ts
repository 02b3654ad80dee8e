import { describe, expect, it } from "vitest";
import { chunkMarkdown } from "./chunk-markdown.js";

/** Deterministic generator so a failing case can be replayed from its seed. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ["the", "agent", "replied", "with", "a", "plan", "deploy", "über", "naïve", "数据", "😀", "❤️", "👍🏽", "👨‍👩‍👧", "🇩🇪", "é", "e.g.", "v1.2.3"];
const SPECIALS = [
  "`inline code`",
  "`` a ` tick ``",
  "[a link with words](https://example.com/path?q=1)",
  "<https://example.org/auto>",
  "https://example.com/" + "very-long-path-segment".repeat(8),
  "x".repeat(150),
  "use ``` to fence",
  "tilde ~~~ too",
  "**bold text**",
];
const LONGEST_FENCE = "````";
const LANGUAGES = ["", "ts", "typescript", "python", "js title=\"a b\"", " bash"];

function pick<T>(random: () => number, items: readonly T[]): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error("empty list");
  return item;
}

function sentence(random: () => number): string {
  const words: string[] = [];
  const count = 2 + Math.floor(random() * 14);
  for (let index = 0; index < count; index += 1) words.push(random() < 0.12 ? pick(random, SPECIALS) : pick(random, WORDS));
  return words.join(" ") + pick(random, [".", "!", "?", "", ":", "。"]);
}

function paragraph(random: () => number): string {
  const kind = random();
  if (kind < 0.15) return Array.from({ length: 1 + Math.floor(random() * 5) }, () => "- " + sentence(random)).join("\n");
  if (kind < 0.22) return "## " + sentence(random);
  return Array.from({ length: 1 + Math.floor(random() * 4) }, () => sentence(random)).join(random() < 0.3 ? "\n" : " ");
}

function codeBlock(random: () => number): string {
  const marker = pick(random, ["```", "```", "~~~", LONGEST_FENCE]);
  const lines = Array.from({ length: 1 + Math.floor(random() * 12) }, (_, index) => {
    if (marker === LONGEST_FENCE && random() < 0.2) return "```js";
    if (marker === "~~~" && random() < 0.2) return "```";
    if (random() < 0.1) return "";
    return "  ".repeat(Math.floor(random() * 3)) + `let value${index} = call("${pick(random, WORDS)}", ${index}); // ${pick(random, WORDS)}`;
  });
  const closed = random() < 0.92;
  return `${marker}${pick(random, LANGUAGES)}\n${lines.join("\n")}${closed ? "\n" + marker : ""}`;
}

function generateReply(random: () => number, targetLength: number): string {
  const blocks: string[] = [];
  let length = 0;
  while (length < targetLength) {
    const block = random() < 0.3 ? codeBlock(random) : paragraph(random);
    // An unclosed fence swallows everything after it, so it may only come last.
    if (!block.endsWith("```") && !block.endsWith("~~~") && /^(`{3,}|~{3,})/.test(block)) {
      blocks.push(block);
      break;
    }
    blocks.push(block);
    length += block.length;
  }
  const text = blocks.join("\n\n");
  return random() < 0.2 ? text.replace(/\n/g, "\r\n") : text;
}

const MARKER = /\n\((\d+)\/(\d+)\)$/;

interface FenceReading {
  /** Marker of the block still open at the end, or null. */
  unclosed: string | null;
  /** The text without the lines that open or close blocks. */
  withoutFenceLines: string;
}

/** Reads fences by CommonMark's rules — independently of the code under test. */
function readFences(text: string): FenceReading {
  let open: { char: string; length: number } | null = null;
  const kept: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const match = /^[ \t]*(`{3,}|~{3,})(.*)$/.exec(line);
    const run = match?.[1] ?? "";
    const rest = match?.[2] ?? "";
    if (match && open === null && !(run.startsWith("`") && rest.includes("`"))) {
      open = { char: run[0] ?? "", length: run.length };
    } else if (match && open !== null && run[0] === open.char && run.length >= open.length && rest.trim() === "") {
      open = null;
    } else {
      kept.push(line);
    }
  }
  return { unclosed: open === null ? null : open.char.repeat(open.length), withoutFenceLines: kept.join("\n") };
}

/** Visible characters outside fence lines: what must survive chunking unchanged and in order. */
function visibleContent(texts: readonly string[]): string {
  return texts.map((text) => readFences(text).withoutFenceLines.replace(/\s+/g, "")).join("");
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const TORN_GRAPHEME_START = /^(?:\uFE0F|\u200D|\uD83C[\uDFFB-\uDFFF]|\u0301)/m;

describe("chunkMarkdown over generated replies", () => {
  const cases = Array.from({ length: 300 }, (_, seed) => seed);

  it.each(cases)("keeps every invariant for seed %i", (seed) => {
    const random = seededRandom(seed + 1);
    const limit = 20 + Math.floor(random() ** 2 * 4077);
    const text = generateReply(random, Math.min(20_000, Math.floor(limit * (0.5 + random() * 6))));
    const chunks = chunkMarkdown(text, limit);

    if (text.length <= limit) {
      expect(chunks).toEqual([text]);
      return;
    }
    expect(chunks.length).toBeGreaterThan(0);
    const bodies = chunks.map((chunk, index) => {
      expect(chunk.length).toBeLessThanOrEqual(limit);
      expect(chunk).not.toMatch(LONE_SURROGATE);
      // Below that, the room left beside markers and fence glue can be narrower than one emoji sequence.
      if (limit >= 40) expect(chunk).not.toMatch(TORN_GRAPHEME_START);
      if (chunks.length === 1) return chunk;
      const marker = MARKER.exec(chunk);
      expect(marker?.slice(1)).toEqual([String(index + 1), String(chunks.length)]);
      return chunk.slice(0, marker?.index);
    });
    // Fence glue is what gives way when the limit leaves no room for it beside the widest marker the chunker may
    // have reserved (only at limits near 20); the text's length bounds the number of chunks.
    const glueRoom = limit - (4 + 2 * String(text.length).length) - 2 * (LONGEST_FENCE.length + 1);
    if (glueRoom >= 2) {
      for (const body of bodies) expect(readFences(body).unclosed).toBeNull();
      expect(visibleContent(bodies)).toBe(visibleContent([text]));
    }
  });

  it("never exceeds the limit without markers either", () => {
    for (let seed = 1000; seed < 1100; seed += 1) {
      const random = seededRandom(seed);
      const limit = 20 + Math.floor(random() * 300);
      const text = generateReply(random, limit * 4);
      const chunks = chunkMarkdown(text, limit, { markers: false });
      for (const chunk of chunks) {
        expect(chunk.length).toBeLessThanOrEqual(limit);
        expect(chunk).not.toMatch(MARKER);
      }
      expect(visibleContent(chunks)).toBe(visibleContent([text]));
    }
  });
});
