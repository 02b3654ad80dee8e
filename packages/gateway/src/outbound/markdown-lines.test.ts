import { describe, expect, it } from "vitest";
import { closesFence, fenceClosingLine, fenceOpenAt, fenceOpeningLine, parseOpeningFence, scanMarkdownLines } from "./markdown-lines.js";

describe("parseOpeningFence", () => {
  it("reads backtick and tilde fences with their info string and indentation", () => {
    expect(parseOpeningFence("```ts")).toEqual({ indent: "", marker: "```", info: "ts" });
    expect(parseOpeningFence("  ~~~~ python title=\"x\"  ")).toEqual({ indent: "  ", marker: "~~~~", info: " python title=\"x\"" });
  });

  it("rejects short runs and backtick fences whose info string holds a backtick", () => {
    expect(parseOpeningFence("``ts")).toBeNull();
    expect(parseOpeningFence("```js``` inline")).toBeNull();
    expect(parseOpeningFence("~~~ `allowed` for tildes")?.marker).toBe("~~~");
    expect(parseOpeningFence("text ```")).toBeNull();
  });
});

describe("closesFence", () => {
  const fence = { indent: "", marker: "````", info: "" };
  it("needs the same character, at least as many, and nothing but whitespace after", () => {
    expect(closesFence("````", fence)).toBe(true);
    expect(closesFence("  `````  ", fence)).toBe(true);
    expect(closesFence("```", fence)).toBe(false);
    expect(closesFence("~~~~", fence)).toBe(false);
    expect(closesFence("```` js", fence)).toBe(false);
  });

  it("builds the lines that reopen and close a fence", () => {
    const indented = { indent: "   ", marker: "~~~", info: "ruby" };
    expect(fenceOpeningLine(indented, true)).toBe("   ~~~ruby");
    expect(fenceOpeningLine(indented, false)).toBe("   ~~~");
    expect(fenceClosingLine(indented)).toBe("   ~~~");
  });
});

describe("scanMarkdownLines", () => {
  const text = "intro\n````md\n```js\ncode\n```\n````\n\nafter";
  const lines = scanMarkdownLines(text);

  it("classifies fence lines and code content, ignoring shorter runs inside a block", () => {
    expect(lines.map((line) => [line.kind, line.inCode, line.blank])).toEqual([
      ["content", false, false],
      ["open", false, false],
      ["content", true, false],
      ["content", true, false],
      ["content", true, false],
      ["close", false, false],
      ["content", false, true],
      ["content", false, false],
    ]);
  });

  it("tells which fence is open at a position, counting a fence line once it is whole", () => {
    const openLine = lines[1];
    if (!openLine) throw new Error("missing line");
    expect(fenceOpenAt(lines, 0)).toBeNull();
    expect(fenceOpenAt(lines, openLine.start + 2)).toBeNull();
    expect(fenceOpenAt(lines, openLine.end)?.marker).toBe("````");
    expect(fenceOpenAt(lines, text.indexOf("code") + 2)?.info).toBe("md");
    expect(fenceOpenAt(lines, text.length)).toBeNull();
  });

  it("leaves a block open to the end when it is never closed", () => {
    const unclosed = scanMarkdownLines("```\nno end");
    expect(fenceOpenAt(unclosed, 10)?.marker).toBe("```");
  });
});
