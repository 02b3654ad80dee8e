import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Value } from "@sinclair/typebox/value";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../observability/logger.js";
import type { ToolContext } from "../tools/types.js";
import { readFileTool } from "./read-file.js";
import { createWorkspace, type Workspace } from "./workspace.js";

let base: string;
let ws: Workspace;
const context: ToolContext = { signal: new AbortController().signal, toolCallId: "call-1", sessionId: "s-1", logger: silentLogger };

beforeEach(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "hermes-")));
  ws = await createWorkspace(path.join(base, "ws"));
});

afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

async function read(args: Record<string, unknown>) {
  return readFileTool(ws).handler(args, context);
}

function numbered(count: number): string {
  return Array.from({ length: count }, (_, index) => `line ${index + 1}`).join("\n") + "\n";
}

describe("read_file", () => {
  it("declares itself as a path-scoped file tool that pages itself", () => {
    const tool = readFileTool(ws);
    expect(tool.name).toBe("read_file");
    expect(tool.concurrency).toBe("path-scoped");
    expect(tool.maxResultChars).toBe(Infinity);
    expect(tool.paths?.({ path: "src/a.ts" })).toEqual([path.join(ws.root, "src", "a.ts")]);
    expect(Value.Check(tool.parameters, { path: "a", limit: 2001 })).toBe(false);
    expect(Value.Check(tool.parameters, { path: "a", offset: 0 })).toBe(false);
    expect(Value.Check(tool.parameters, { path: "a", offset: 3, limit: 10 })).toBe(true);
  });

  it("returns numbered lines with a header", async () => {
    await fs.mkdir(path.join(ws.root, "src"));
    await fs.writeFile(path.join(ws.root, "src", "a.ts"), "const a = 1;\r\n\nexport { a };\n");
    const result = await read({ path: "src/a.ts" });
    expect(result.isError).toBeUndefined();
    expect(result.content).toBe(
      ["File: src/a.ts (lines 1–3 of 3)", "     1| const a = 1;", "     2| ", "     3| export { a };"].join("\n"),
    );
  });

  it("pages with offset and limit and says where to continue", async () => {
    await fs.writeFile(path.join(ws.root, "long.txt"), numbered(30));
    const first = await read({ path: "long.txt", limit: 10 });
    expect(first.content).toContain("File: long.txt (lines 1–10 of 30)");
    expect(first.content).toContain("offset=11");
    const second = await read({ path: "long.txt", offset: 11, limit: 10 });
    expect(second.content.split("\n")[1]).toBe("    11| line 11");
    expect(second.content).toContain("(lines 11–20 of 30)");
    const last = await read({ path: "long.txt", offset: 25 });
    expect(last.content).toContain("(lines 25–30 of 30)");
    expect(last.content).not.toContain("offset=");
  });

  it("reads 500 lines by default", async () => {
    await fs.writeFile(path.join(ws.root, "big.txt"), numbered(600));
    const result = await read({ path: "big.txt" });
    expect(result.content).toContain("(lines 1–500 of 600)");
    expect(result.content).toContain("100 more lines");
    expect(result.content).toContain("offset=501");
  });

  it("refuses an offset past the end", async () => {
    await fs.writeFile(path.join(ws.root, "short.txt"), numbered(3));
    const result = await read({ path: "short.txt", offset: 4 });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("3 lines");
  });

  it("truncates very long lines with a marker", async () => {
    await fs.writeFile(path.join(ws.root, "wide.txt"), `${"x".repeat(5000)}\nshort\n`);
    const result = await read({ path: "wide.txt" });
    const firstLine = result.content.split("\n")[1] ?? "";
    expect(firstLine).toContain("x".repeat(2000));
    expect(firstLine).not.toContain("x".repeat(2001));
    expect(firstLine).toContain("line truncated: 5000 characters");
    expect(result.content).toContain("     2| short");
  });

  it("caps the output size and gives the offset to continue from", async () => {
    const line = "y".repeat(1500);
    await fs.writeFile(path.join(ws.root, "heavy.txt"), `${Array.from({ length: 200 }, () => line).join("\n")}\n`);
    const result = await read({ path: "heavy.txt", limit: 2000 });
    expect(result.content.length).toBeLessThan(101_000);
    const match = /offset=(\d+)/.exec(result.content);
    expect(match).not.toBeNull();
    const next = Number(match?.[1]);
    expect(next).toBeGreaterThan(1);
    expect(next).toBeLessThan(200);
    expect(result.content).toContain(`(lines 1–${next - 1} of 200)`);
    const continued = await read({ path: "heavy.txt", offset: next, limit: 5 });
    expect(continued.content).toContain(`(lines ${next}–${next + 4} of 200)`);
  });

  it("reports an empty file", async () => {
    await fs.writeFile(path.join(ws.root, "empty.txt"), "");
    const result = await read({ path: "empty.txt" });
    expect(result.isError).toBeUndefined();
    expect(result.content).toBe("File: empty.txt (empty)");
  });

  it("refuses binary files", async () => {
    await fs.writeFile(path.join(ws.root, "image.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
    const result = await read({ path: "image.png" });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("binary");
  });

  it("refuses files over 50 MB", async () => {
    const handle = await fs.open(path.join(ws.root, "huge.log"), "w");
    await handle.truncate(50 * 1024 * 1024 + 1);
    await handle.close();
    const result = await read({ path: "huge.log" });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("too large");
  });

  it("returns a clear error for a missing file or a folder", async () => {
    const missing = await read({ path: "nope.txt" });
    expect(missing).toEqual({ content: "File not found: nope.txt", isError: true });
    await fs.mkdir(path.join(ws.root, "dir"));
    const folder = await read({ path: "dir" });
    expect(folder.isError).toBe(true);
    expect(folder.content).toContain("list_directory");
  });

  it("refuses paths outside the workspace, including through symlinks", async () => {
    await fs.writeFile(path.join(base, "secret.txt"), "secret");
    await fs.symlink(path.join(base, "secret.txt"), path.join(ws.root, "leak.txt"));
    for (const requested of ["../secret.txt", path.join(base, "secret.txt"), "leak.txt"]) {
      const result = await read({ path: requested });
      expect(result.isError).toBe(true);
      expect(result.content).toContain("outside the workspace");
      expect(result.content).not.toContain("secret\n");
    }
  });

  it("reads files in a read-only root", async () => {
    const docs = path.join(base, "docs");
    await fs.mkdir(docs);
    await fs.writeFile(path.join(docs, "guide.md"), "hello\n");
    const withDocs = await createWorkspace(ws.root, { readOnlyRoots: [docs] });
    const result = await readFileTool(withDocs).handler({ path: path.join(docs, "guide.md") }, context);
    expect(result.content).toContain(`File: ${path.join(docs, "guide.md")} (lines 1–1 of 1)`);
    expect(result.content).toContain("     1| hello");
  });
});
