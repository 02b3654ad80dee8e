import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../observability/logger.js";
import type { ToolContext } from "../tools/types.js";
import { listDirectoryTool } from "./list-directory.js";
import { createWorkspace, type Workspace } from "./workspace.js";

let base: string;
let ws: Workspace;

function contextWith(signal: AbortSignal = new AbortController().signal): ToolContext {
  return { signal, toolCallId: "call-1", sessionId: "s-1", logger: silentLogger };
}

async function put(relative: string, content: string): Promise<void> {
  const target = path.join(ws.root, relative);
  await fs.mkdir(path.dirname(target), { recursive: true });
  await fs.writeFile(target, content);
}

beforeEach(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "hermes-")));
  ws = await createWorkspace(path.join(base, "ws"));
  await put("b.txt", "x".repeat(2048));
  await put("a.md", "hello");
  await put("src/main.ts", "");
  await put("src/lib/util.ts", "abc");
  await put(".git/HEAD", "ref");
  await put("node_modules/dep/index.js", "");
});

afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

async function list(args: Record<string, unknown>, context: ToolContext = contextWith()) {
  return listDirectoryTool(ws).handler(args, context);
}

describe("list_directory", () => {
  it("declares itself as a parallel-safe file tool", () => {
    const tool = listDirectoryTool(ws);
    expect(tool.name).toBe("list_directory");
    expect(tool.concurrency).toBe("parallel-safe");
  });

  it("lists the root sorted, with folders marked and file sizes", async () => {
    const result = await list({});
    expect(result.isError).toBeUndefined();
    expect(result.content.split("\n")).toEqual([
      "Folder: . (workspace root)",
      ".git/",
      "a.md  (5 B)",
      "b.txt  (2.0 KB)",
      "node_modules/",
      "src/",
    ]);
  });

  it("lists recursively without expanding .git and node_modules", async () => {
    const result = await list({ recursive: true });
    expect(result.content.split("\n")).toEqual([
      "Folder: . (workspace root)",
      ".git/  (not expanded)",
      "a.md  (5 B)",
      "b.txt  (2.0 KB)",
      "node_modules/  (not expanded)",
      "src/",
      "src/lib/",
      "src/lib/util.ts  (3 B)",
      "src/main.ts  (0 B)",
    ]);
  });

  it("lists a subfolder", async () => {
    const result = await list({ path: "src" });
    expect(result.content.split("\n")).toEqual(["Folder: src", "lib/", "main.ts  (0 B)"]);
  });

  it("caps the number of entries with a note", async () => {
    const result = await list({ recursive: true, max_entries: 3 });
    const lines = result.content.split("\n");
    expect(lines).toHaveLength(5);
    expect(lines[4]).toContain("More entries not shown");
    expect(result.details).toMatchObject({ entries: 3, truncated: true });
  });

  it("shows symlinks without following them", async () => {
    const outside = path.join(base, "outside");
    await fs.mkdir(outside);
    await fs.writeFile(path.join(outside, "secret.txt"), "s");
    await fs.symlink(outside, path.join(ws.root, "src", "escape"));
    const result = await list({ path: "src", recursive: true });
    expect(result.content).toContain("escape -> (link)");
    expect(result.content).not.toContain("secret.txt");
    expect(result.content).not.toContain(outside);
  });

  it("reports an empty folder", async () => {
    await fs.mkdir(path.join(ws.root, "empty"));
    const result = await list({ path: "empty" });
    expect(result.content).toBe("Folder: empty\n(empty)");
  });

  it("returns errors for a missing folder, a file, and paths outside", async () => {
    expect(await list({ path: "nope" })).toEqual({ content: "Folder not found: nope", isError: true });
    const file = await list({ path: "a.md" });
    expect(file.isError).toBe(true);
    expect(file.content).toContain("read_file");
    await fs.symlink(base, path.join(ws.root, "up"));
    for (const requested of ["..", base, "up"]) {
      const result = await list({ path: requested });
      expect(result.isError).toBe(true);
      expect(result.content).toContain("outside the workspace");
    }
  });

  it("lists a read-only root", async () => {
    const docs = path.join(base, "docs");
    await fs.mkdir(docs);
    await fs.writeFile(path.join(docs, "guide.md"), "abc");
    const withDocs = await createWorkspace(ws.root, { readOnlyRoots: [docs] });
    const result = await listDirectoryTool(withDocs).handler({ path: docs }, contextWith());
    expect(result.content.split("\n")).toEqual([`Folder: ${docs}`, "guide.md  (3 B)"]);
  });

  it("stops when the signal is aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await list({ recursive: true }, contextWith(controller.signal));
    expect(result.isError).toBe(true);
    expect(result.content).toContain("cancelled");
  });
});
