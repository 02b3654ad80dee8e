import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../observability/logger.js";
import type { ToolContext } from "../tools/types.js";
import { writeFileTool } from "./write-file.js";
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

async function write(args: Record<string, unknown>) {
  return writeFileTool(ws).handler(args, context);
}

describe("write_file", () => {
  it("declares itself as a path-scoped file tool", () => {
    const tool = writeFileTool(ws);
    expect(tool.name).toBe("write_file");
    expect(tool.concurrency).toBe("path-scoped");
    expect(tool.paths?.({ path: "a.txt", content: "" })).toEqual([path.join(ws.root, "a.txt")]);
  });

  it("creates a file and its parent folders, reporting bytes and lines", async () => {
    const result = await write({ path: "notes/2024/today.md", content: "héllo\nworld\n" });
    expect(result.isError).toBeUndefined();
    expect(result.content).toBe("Created notes/2024/today.md: wrote 13 bytes (2 lines).");
    expect(result.details).toMatchObject({ bytes: 13, lines: 2, created: true });
    expect(await fs.readFile(path.join(ws.root, "notes", "2024", "today.md"), "utf8")).toBe("héllo\nworld\n");
  });

  it("overwrites an existing file, keeps its permissions and leaves no temp file", async () => {
    const target = path.join(ws.root, "run.sh");
    await fs.writeFile(target, "old");
    await fs.chmod(target, 0o750);
    const result = await writeFileTool(ws, { tempSuffix: () => "fixed" }).handler(
      { path: "run.sh", content: "echo hi" },
      context,
    );
    expect(result.content).toBe("Overwrote run.sh: wrote 7 bytes (1 line).");
    expect(await fs.readFile(target, "utf8")).toBe("echo hi");
    expect((await fs.stat(target)).mode & 0o777).toBe(0o750);
    expect(await fs.readdir(ws.root)).toEqual(["run.sh"]);
  });

  it("writes an empty file", async () => {
    const result = await write({ path: "empty.txt", content: "" });
    expect(result.content).toBe("Created empty.txt: wrote 0 bytes (0 lines).");
    expect(await fs.readFile(path.join(ws.root, "empty.txt"), "utf8")).toBe("");
  });

  it("refuses to replace a folder", async () => {
    await fs.mkdir(path.join(ws.root, "dir"));
    const result = await write({ path: "dir", content: "x" });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("is a folder");
    expect((await fs.stat(path.join(ws.root, "dir"))).isDirectory()).toBe(true);
  });

  it("reports a file standing where a parent folder is needed", async () => {
    await fs.writeFile(path.join(ws.root, "plain"), "x");
    const result = await write({ path: "plain/child.txt", content: "y" });
    expect(result.isError).toBe(true);
    expect(result.content).toBe("Cannot create plain/child.txt: one of its parent paths is a file, not a folder.");
    expect(result.content).not.toContain(base);
  });

  it("refuses traversal, absolute outside paths and symlink escapes", async () => {
    const outside = path.join(base, "outside");
    await fs.mkdir(outside);
    await fs.symlink(outside, path.join(ws.root, "escape"));
    await fs.writeFile(path.join(outside, "victim.txt"), "safe");
    await fs.symlink(path.join(outside, "victim.txt"), path.join(ws.root, "victim-link.txt"));
    for (const requested of ["../outside/new.txt", path.join(outside, "new.txt"), "escape/new.txt", "victim-link.txt"]) {
      const result = await write({ path: requested, content: "pwned" });
      expect(result.isError).toBe(true);
      expect(result.content).toContain("outside the workspace");
    }
    expect((await fs.readdir(outside)).sort()).toEqual(["victim.txt"]);
    expect(await fs.readFile(path.join(outside, "victim.txt"), "utf8")).toBe("safe");
  });

  it("refuses writing into a read-only root", async () => {
    const docs = path.join(base, "docs");
    await fs.mkdir(docs);
    const withDocs = await createWorkspace(ws.root, { readOnlyRoots: [docs] });
    const result = await writeFileTool(withDocs).handler({ path: path.join(docs, "x.md"), content: "x" }, context);
    expect(result.isError).toBe(true);
    expect(result.content).toContain("read-only");
    expect(await fs.readdir(docs)).toEqual([]);
  });

  it("writes through a symlink that stays inside the workspace, keeping the link", async () => {
    await fs.writeFile(path.join(ws.root, "real.txt"), "old");
    await fs.symlink("real.txt", path.join(ws.root, "alias.txt"));
    const result = await write({ path: "alias.txt", content: "new" });
    expect(result.isError).toBeUndefined();
    expect(await fs.readFile(path.join(ws.root, "real.txt"), "utf8")).toBe("new");
    expect((await fs.lstat(path.join(ws.root, "alias.txt"))).isSymbolicLink()).toBe(true);
  });
});
