import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_SKIPPED_DIRECTORIES, walkTree, type WalkOptions } from "./walk.js";

let folder: string;

beforeEach(async () => {
  folder = await fs.mkdtemp(path.join(os.tmpdir(), "hermes-"));
  await fs.mkdir(path.join(folder, "b", "c"), { recursive: true });
  await fs.mkdir(path.join(folder, "node_modules", "x"), { recursive: true });
  await fs.writeFile(path.join(folder, "a.txt"), "");
  await fs.writeFile(path.join(folder, "b", "c", "d.txt"), "");
  await fs.symlink(folder, path.join(folder, "b", "loop"));
});

afterEach(async () => {
  await fs.rm(folder, { recursive: true, force: true });
});

async function collect(options: WalkOptions): Promise<string[]> {
  const seen: string[] = [];
  for await (const entry of walkTree(folder, options)) {
    seen.push(`${entry.relativePath}:${entry.kind}${entry.skipped ? ":skipped" : ""}`);
  }
  return seen;
}

describe("walkTree", () => {
  it("walks depth-first in name order, skipping named folders and never following links", async () => {
    expect(await collect({ recursive: true, skipDirectoryNames: DEFAULT_SKIPPED_DIRECTORIES })).toEqual([
      "a.txt:file",
      "b:directory",
      "b/c:directory",
      "b/c/d.txt:file",
      "b/loop:symlink",
      "node_modules:directory:skipped",
    ]);
  });

  it("lists one level when not recursive", async () => {
    expect(await collect({ recursive: false, skipDirectoryNames: DEFAULT_SKIPPED_DIRECTORIES })).toEqual([
      "a.txt:file",
      "b:directory",
      "node_modules:directory",
    ]);
  });

  it("yields nothing once the signal is aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    expect(await collect({ recursive: true, signal: controller.signal })).toEqual([]);
  });

  it("throws when the walked folder itself cannot be read", async () => {
    const walk = walkTree(path.join(folder, "missing"), { recursive: true });
    await expect(walk.next()).rejects.toMatchObject({ code: "ENOENT" });
  });
});
