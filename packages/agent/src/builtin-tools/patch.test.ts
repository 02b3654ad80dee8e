import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../observability/logger.js";
import type { ToolContext } from "../tools/types.js";
import { patchTool } from "./patch.js";
import { createWorkspace, type Workspace } from "./workspace.js";

let base: string;
let ws: Workspace;
const context: ToolContext = { signal: new AbortController().signal, toolCallId: "call-1", sessionId: "s-1", logger: silentLogger };
const SOURCE = ["function greet(name) {", "  const text = 'hi ' + name;", "  return text;", "}", ""].join("\n");

beforeEach(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "hermes-")));
  ws = await createWorkspace(path.join(base, "ws"));
  await fs.writeFile(path.join(ws.root, "greet.js"), SOURCE);
});

afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

async function patch(args: Record<string, unknown>) {
  return patchTool(ws).handler(args, context);
}

async function contentOf(name: string): Promise<string> {
  return fs.readFile(path.join(ws.root, name), "utf8");
}

describe("patch", () => {
  it("declares itself as a path-scoped file tool", () => {
    const tool = patchTool(ws);
    expect(tool.name).toBe("patch");
    expect(tool.concurrency).toBe("path-scoped");
    expect(tool.paths?.({ path: "greet.js", old_string: "a", new_string: "b" })).toEqual([path.join(ws.root, "greet.js")]);
  });

  it("replaces a unique match and shows the changed region", async () => {
    const result = await patch({ path: "greet.js", old_string: "'hi '", new_string: "'hello, '" });
    expect(result.isError).toBeUndefined();
    expect(await contentOf("greet.js")).toBe(SOURCE.replace("'hi '", "'hello, '"));
    expect(result.content.split("\n")[0]).toBe("Patched greet.js: 1 replacement.");
    expect(result.content).toContain("     2|   const text = 'hello, ' + name;");
    expect(result.content).toContain("     1| function greet(name) {");
    expect(result.details).toMatchObject({ replacements: 1 });
  });

  it("inserts replacement text literally, without $ substitutions", async () => {
    await patch({ path: "greet.js", old_string: "return text;", new_string: "return `$&${text}$1`;" });
    expect(await contentOf("greet.js")).toContain("return `$&${text}$1`;");
  });

  it("refuses several matches without replace_all and says how many", async () => {
    await fs.writeFile(path.join(ws.root, "dup.txt"), "x = 1\ny = 2\nx = 1\nx = 1\n");
    const result = await patch({ path: "dup.txt", old_string: "x = 1", new_string: "x = 3" });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("3 times");
    expect(result.content).toContain("lines 1, 3, 4");
    expect(result.content).toContain("context");
    expect(await contentOf("dup.txt")).toBe("x = 1\ny = 2\nx = 1\nx = 1\n");
  });

  it("replaces every match with replace_all", async () => {
    await fs.writeFile(path.join(ws.root, "dup.txt"), "x = 1\ny = 2\nx = 1\n");
    const result = await patch({ path: "dup.txt", old_string: "x = 1", new_string: "x = 3", replace_all: true });
    expect(result.content.split("\n")[0]).toBe("Patched dup.txt: 2 replacements.");
    expect(result.content).toContain("1 more not shown");
    expect(await contentOf("dup.txt")).toBe("x = 3\ny = 2\nx = 3\n");
  });

  it("explains a missing match and points to a whitespace-only difference", async () => {
    const result = await patch({
      path: "greet.js",
      old_string: "const text = 'hi ' + name;\n    return text;",
      new_string: "return 'hi ' + name;",
    });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("not found");
    expect(result.content).toContain("differs only in whitespace");
    expect(result.content).toContain("line 2");
    expect(await contentOf("greet.js")).toBe(SOURCE);
  });

  it("explains a missing match without a hint when nothing similar exists", async () => {
    const result = await patch({ path: "greet.js", old_string: "goodbye", new_string: "bye" });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("not found");
    expect(result.content).not.toContain("whitespace");
  });

  it("refuses identical or empty old/new strings", async () => {
    const same = await patch({ path: "greet.js", old_string: "return text;", new_string: "return text;" });
    expect(same.isError).toBe(true);
    expect(same.content).toContain("identical");
    const empty = await patch({ path: "greet.js", old_string: "", new_string: "x" });
    expect(empty.isError).toBe(true);
    expect(await contentOf("greet.js")).toBe(SOURCE);
  });

  it("deletes text when new_string is empty", async () => {
    const result = await patch({ path: "greet.js", old_string: "  return text;\n", new_string: "" });
    expect(result.isError).toBeUndefined();
    expect(await contentOf("greet.js")).toBe("function greet(name) {\n  const text = 'hi ' + name;\n}\n");
  });

  it("reports a missing file and suggests write_file", async () => {
    const result = await patch({ path: "missing.js", old_string: "a", new_string: "b" });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("File not found: missing.js");
    expect(result.content).toContain("write_file");
  });

  it("refuses binary files", async () => {
    await fs.writeFile(path.join(ws.root, "blob.bin"), Buffer.from([0x61, 0x00, 0x62]));
    const result = await patch({ path: "blob.bin", old_string: "a", new_string: "c" });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("binary");
  });

  it("refuses paths outside the workspace and in read-only roots", async () => {
    const outside = path.join(base, "outside");
    await fs.mkdir(outside);
    await fs.writeFile(path.join(outside, "t.txt"), "a");
    await fs.symlink(path.join(outside, "t.txt"), path.join(ws.root, "t-link.txt"));
    for (const requested of ["../outside/t.txt", path.join(outside, "t.txt"), "t-link.txt"]) {
      const result = await patch({ path: requested, old_string: "a", new_string: "b" });
      expect(result.isError).toBe(true);
      expect(result.content).toContain("outside the workspace");
    }
    const readOnly = await createWorkspace(ws.root, { readOnlyRoots: [outside] });
    const result = await patchTool(readOnly).handler(
      { path: path.join(outside, "t.txt"), old_string: "a", new_string: "b" },
      context,
    );
    expect(result.content).toContain("read-only");
    expect(await fs.readFile(path.join(outside, "t.txt"), "utf8")).toBe("a");
  });
});
