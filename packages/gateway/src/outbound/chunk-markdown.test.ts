import { describe, expect, it } from "vitest";
import { chunkMarkdown } from "./chunk-markdown.js";

const MARKER = /\n\((\d+)\/(\d+)\)$/;

function withoutMarker(chunk: string): string {
  return chunk.replace(MARKER, "");
}

describe("chunkMarkdown: trivial inputs", () => {
  it("returns nothing for empty or whitespace-only text", () => {
    expect(chunkMarkdown("", 100)).toEqual([]);
    expect(chunkMarkdown(" \n\t\r\n ", 100)).toEqual([]);
  });

  it("returns text within the limit unchanged, without a marker", () => {
    const text = "  Hello *world*\r\n```js\nunclosed fence  ";
    expect(chunkMarkdown(text, text.length)).toEqual([text]);
    expect(chunkMarkdown("😀", 2)).toEqual(["😀"]);
  });

  it("rejects a limit that is not a positive integer", () => {
    expect(() => chunkMarkdown("text", 0)).toThrow(RangeError);
    expect(() => chunkMarkdown("text", 10.5)).toThrow(RangeError);
  });

  it("drops trailing whitespace that alone exceeds the limit, leaving one unmarked chunk", () => {
    expect(chunkMarkdown("hello" + " ".repeat(50) + "\n\n", 20)).toEqual(["hello"]);
  });
});

describe("chunkMarkdown: split points", () => {
  const plain = { markers: false };

  it("prefers a paragraph break to a later line break", () => {
    const text = `${"a".repeat(40)}\n\n${"b".repeat(20)}\n${"c".repeat(20)}`;
    expect(chunkMarkdown(text, 70, plain)).toEqual(["a".repeat(40), `${"b".repeat(20)}\n${"c".repeat(20)}`]);
  });

  it("takes a later line break over a paragraph break that would leave the chunk less than half full", () => {
    const text = `${"a".repeat(20)}\n\n${"b".repeat(40)}\n${"c".repeat(20)}`;
    expect(chunkMarkdown(text, 70, plain)).toEqual([`${"a".repeat(20)}\n\n${"b".repeat(40)}`, "c".repeat(20)]);
  });

  it("prefers a line break to a sentence end, and a sentence end to a space", () => {
    expect(chunkMarkdown("First line here.\nSecond one. It goes on and on", 40, plain)).toEqual([
      "First line here.\nSecond one.",
      "It goes on and on",
    ]);
    expect(chunkMarkdown("One two three four. Five six seven eight nine", 30, plain)).toEqual([
      "One two three four.",
      "Five six seven eight nine",
    ]);
    expect(chunkMarkdown("One two three four five six seven eight nine", 30, plain)).toEqual([
      "One two three four five six",
      "seven eight nine",
    ]);
  });

  it("splits after full-width sentence punctuation, which needs no space", () => {
    expect(chunkMarkdown("这是第一句话。这是第二句话，比较长一些。", 14, plain)).toEqual(["这是第一句话。", "这是第二句话，比较长一些。"]);
  });

  it("cuts a word longer than the limit anywhere, losing nothing", () => {
    const url = "https://example.com/" + "segment/".repeat(40);
    const chunks = chunkMarkdown(`See ${url} for details`, 50, plain);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(50);
    expect(chunks.join("").replace(/\s/g, "")).toBe(`See${url}fordetails`);
  });

  it("avoids cutting inside an inline code span or a link when another split point fits", () => {
    const text = "Run `npm run build --workspace web` then read [the deployment guide](https://example.com/guide) now";
    expect(chunkMarkdown(text, 52, plain)).toEqual([
      "Run `npm run build --workspace web` then read",
      "[the deployment guide](https://example.com/guide)",
      "now",
    ]);
    for (const limit of [52, 60, 70, 80, 90]) {
      for (const chunk of chunkMarkdown(text, limit, plain)) {
        expect(chunk.split("`").length % 2).toBe(1);
        expect(chunk.includes("[the") === chunk.includes("guide)")).toBe(true);
      }
    }
  });

  it("cuts inside an inline code span when it is longer than a chunk", () => {
    const chunks = chunkMarkdown("`" + "word ".repeat(20).trim() + "`", 40, plain);
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.join(" ")).toBe("`" + "word ".repeat(20).trim() + "`");
  });

  it("keeps the indentation of the line a chunk starts with", () => {
    const text = `${"x".repeat(30)}\n    indented line`;
    expect(chunkMarkdown(text, 32, plain)).toEqual(["x".repeat(30), "    indented line"]);
  });

  it("splits CRLF text at its line breaks and returns \\n line endings", () => {
    const text = "first paragraph line\r\nsecond line\r\n\r\nthird paragraph is here";
    expect(chunkMarkdown(text, 40, plain)).toEqual(["first paragraph line\nsecond line", "third paragraph is here"]);
  });
});

describe("chunkMarkdown: characters at chunk boundaries", () => {
  it("never splits a surrogate pair", () => {
    const text = "😀".repeat(60);
    for (const limit of [21, 25, 33]) {
      const chunks = chunkMarkdown(text, limit, { markers: false });
      for (const chunk of chunks) {
        expect(chunk.length).toBeLessThanOrEqual(limit);
        expect(chunk).toMatch(/^(?:😀)+$/);
      }
      expect(chunks.join("")).toBe(text);
    }
  });

  it("keeps an emoji with its variation selector, skin tone or ZWJ partners", () => {
    for (const emoji of ["❤️", "👍🏽", "👨‍👩‍👧", "🇩🇪", "é"]) {
      const text = emoji.repeat(40);
      const chunks = chunkMarkdown(text, 23, { markers: false });
      for (const chunk of chunks) {
        expect(chunk.length).toBeLessThanOrEqual(23);
        expect(chunk.split(emoji).join("")).toBe("");
      }
      expect(chunks.join("")).toBe(text);
    }
  });
});

describe("chunkMarkdown: markers", () => {
  it("appends (i/N) on its own line to every chunk, within the limit", () => {
    const chunks = chunkMarkdown("alpha beta gamma delta epsilon zeta eta theta", 20);
    expect(chunks).toEqual(["alpha beta\n(1/4)", "gamma delta\n(2/4)", "epsilon zeta\n(3/4)", "eta theta\n(4/4)"]);
  });

  it("recounts until the marker width is stable when the count reaches two digits", () => {
    const words = Array.from({ length: 60 }, (_, index) => `w${index}`).join(" ");
    const chunks = chunkMarkdown(words, 24);
    expect(chunks.length).toBeGreaterThanOrEqual(10);
    chunks.forEach((chunk, index) => {
      expect(chunk.length).toBeLessThanOrEqual(24);
      expect(MARKER.exec(chunk)?.slice(1)).toEqual([String(index + 1), String(chunks.length)]);
    });
    expect(chunks.map(withoutMarker).join(" ")).toBe(words);
  });

  it("leaves markers out when asked", () => {
    expect(chunkMarkdown("alpha beta gamma delta epsilon zeta eta theta", 20, { markers: false })).toEqual([
      "alpha beta gamma",
      "delta epsilon zeta",
      "eta theta",
    ]);
  });
});

describe("chunkMarkdown: fenced code blocks", () => {
  const code = Array.from({ length: 8 }, (_, index) => `print("line ${index}")`).join("\n");

  it("closes a block cut across chunks and reopens it with the same fence and language", () => {
    const chunks = chunkMarkdown(`Here is the script:\n\n\`\`\`python\n${code}\n\`\`\`\n\nDone.`, 120);
    expect(chunks).toEqual([
      'Here is the script:\n\n```python\nprint("line 0")\nprint("line 1")\nprint("line 2")\nprint("line 3")\nprint("line 4")\n```\n(1/2)',
      '```python\nprint("line 5")\nprint("line 6")\nprint("line 7")\n```\n\nDone.\n(2/2)',
    ]);
  });

  it("reopens tilde fences and longer backtick fences as they were written", () => {
    const tilde = chunkMarkdown(`~~~ruby\n${code}\n~~~`, 90, { markers: false });
    expect(tilde.every((chunk) => chunk.startsWith("~~~ruby\n") && chunk.endsWith("\n~~~"))).toBe(true);

    const nested = `\`\`\`\`markdown\n\`\`\`js\n${code}\n\`\`\`\n\`\`\`\``;
    const chunks = chunkMarkdown(nested, 100, { markers: false });
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) {
      expect(chunk.startsWith("````markdown\n")).toBe(true);
      expect(chunk.endsWith("\n````")).toBe(true);
    }
  });

  it("keeps an indented fence's indentation when reopening it", () => {
    const chunks = chunkMarkdown(`1. Run:\n   \`\`\`sh\n${code.replace(/^/gm, "   ")}\n   \`\`\``, 100, { markers: false });
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks[1]?.startsWith("   ```sh\n")).toBe(true);
    expect(chunks[0]?.endsWith("\n   ```")).toBe(true);
  });

  it("closes a block the text leaves unclosed once the text is split", () => {
    const chunks = chunkMarkdown(`Output:\n\`\`\`\n${code}`, 100, { markers: false });
    expect(chunks.at(-1)?.endsWith("\n```")).toBe(true);
  });

  it("does not mistake backticks inside a sentence for a fence", () => {
    const text = "Wrap code in ``` fences, or use ~~~ instead. " + "Then keep writing prose for a while. ".repeat(4);
    const chunks = chunkMarkdown(text, 60, { markers: false });
    expect(chunks.join(" ").replace(/\s+/g, " ").trim()).toBe(text.replace(/\s+/g, " ").trim());
    for (const chunk of chunks) expect(chunk).not.toMatch(/^(```|~~~)/m);
  });

  it("drops a long info string before it would crowd out the code at a small limit", () => {
    const chunks = chunkMarkdown(`\`\`\`typescript title="server.ts"\n${code}\n\`\`\``, 40);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(40);
      expect(withoutMarker(chunk)).toMatch(/^```[^\n]*\n[\s\S]*\n```$/);
    }
  });

  it("fills chunks at a real platform limit and keeps every block balanced", () => {
    const block = `\`\`\`ts\n${"const value = compute(input);\n".repeat(60)}\`\`\``;
    const prose = "This paragraph explains the next step in some detail. ".repeat(12).trim();
    const text = Array.from({ length: 12 }, (_, index) => (index % 3 === 2 ? block : prose)).join("\n\n");
    const chunks = chunkMarkdown(text, 4096);
    expect(chunks.length).toBeGreaterThan(3);
    chunks.forEach((chunk, index) => {
      expect(chunk.length).toBeLessThanOrEqual(4096);
      if (index < chunks.length - 1) expect(chunk.length).toBeGreaterThan(2048);
      expect((withoutMarker(chunk).match(/^```/gm) ?? []).length % 2).toBe(0);
    });
  });
});
