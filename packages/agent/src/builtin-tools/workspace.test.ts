import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createWorkspace, declaredPaths, resolveInWorkspace, type Workspace } from "./workspace.js";

let base: string;
let ws: Workspace;
let outside: string;

beforeEach(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "hermes-")));
  outside = path.join(base, "outside");
  await fs.mkdir(outside);
  await fs.writeFile(path.join(outside, "secret.txt"), "secret");
  ws = await createWorkspace(path.join(base, "ws"));
  await fs.mkdir(path.join(ws.root, "src"));
  await fs.writeFile(path.join(ws.root, "src", "a.txt"), "a");
});

afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

function expectRefused(result: Awaited<ReturnType<typeof resolveInWorkspace>>): string {
  if (result.ok) throw new Error(`expected a refusal, got ${result.path}`);
  return result.error;
}

describe("createWorkspace", () => {
  it("creates the root and stores its real path", async () => {
    const link = path.join(base, "link-to-new");
    await fs.symlink(path.join(base, "new"), link);
    await fs.mkdir(path.join(base, "new"));
    const created = await createWorkspace(path.join(link, "deep", "er"));
    expect(created.root).toBe(path.join(base, "new", "deep", "er"));
    expect((await fs.stat(created.root)).isDirectory()).toBe(true);
    expect(created.readOnlyRoots).toEqual([]);
  });
});

describe("resolveInWorkspace", () => {
  it("resolves relative paths against the root and displays them relative", async () => {
    const result = await resolveInWorkspace(ws, "src/a.txt", "read");
    expect(result).toEqual({ ok: true, path: path.join(ws.root, "src", "a.txt"), display: "src/a.txt" });
  });

  it("accepts paths that do not exist yet, including missing folders", async () => {
    const result = await resolveInWorkspace(ws, "new/dir/file.txt", "write");
    expect(result).toEqual({ ok: true, path: path.join(ws.root, "new", "dir", "file.txt"), display: "new/dir/file.txt" });
  });

  it("shows the root itself as '.'", async () => {
    expect(await resolveInWorkspace(ws, ".", "read")).toEqual({ ok: true, path: ws.root, display: "." });
  });

  it("accepts absolute paths inside the root and normalises inner '..'", async () => {
    const result = await resolveInWorkspace(ws, path.join(ws.root, "src", "..", "src", "a.txt"), "write");
    expect(result).toEqual({ ok: true, path: path.join(ws.root, "src", "a.txt"), display: "src/a.txt" });
  });

  it("refuses '..' traversal out of the root", async () => {
    const error = expectRefused(await resolveInWorkspace(ws, "../outside/secret.txt", "read"));
    expect(error).toContain("outside the workspace");
    expectRefused(await resolveInWorkspace(ws, "src/../../ws-sibling", "write"));
  });

  it("refuses absolute paths outside the root", async () => {
    const error = expectRefused(await resolveInWorkspace(ws, path.join(outside, "secret.txt"), "read"));
    expect(error).toContain("outside the workspace");
    expectRefused(await resolveInWorkspace(ws, "/etc/passwd", "read"));
  });

  it("does not treat a sibling folder sharing the root's prefix as inside", async () => {
    await fs.mkdir(`${ws.root}-evil`);
    expectRefused(await resolveInWorkspace(ws, `${ws.root}-evil/x`, "read"));
  });

  it("refuses '~', NUL bytes and empty paths", async () => {
    expect(expectRefused(await resolveInWorkspace(ws, "~/notes.txt", "read"))).toContain("~");
    expect(expectRefused(await resolveInWorkspace(ws, "a\0b", "read"))).toContain("NUL");
    expect(expectRefused(await resolveInWorkspace(ws, "", "read"))).toContain("empty");
    expect(expectRefused(await resolveInWorkspace(ws, "   ", "write"))).toContain("empty");
  });

  it("refuses a file symlink that points outside, without naming the target", async () => {
    await fs.symlink(path.join(outside, "secret.txt"), path.join(ws.root, "leak.txt"));
    for (const mode of ["read", "write"] as const) {
      const error = expectRefused(await resolveInWorkspace(ws, "leak.txt", mode));
      expect(error).toContain("outside the workspace");
      expect(error).not.toContain(outside);
    }
  });

  it("refuses paths below a folder symlink that points outside, existing or not", async () => {
    await fs.symlink(outside, path.join(ws.root, "escape"));
    expectRefused(await resolveInWorkspace(ws, "escape/secret.txt", "read"));
    expectRefused(await resolveInWorkspace(ws, "escape/new/file.txt", "write"));
    expectRefused(await resolveInWorkspace(ws, "escape", "read"));
  });

  it("refuses a dangling symlink whose target would be outside", async () => {
    await fs.symlink(path.join(outside, "not-yet.txt"), path.join(ws.root, "dangling.txt"));
    expectRefused(await resolveInWorkspace(ws, "dangling.txt", "write"));
  });

  it("follows symlinks that stay inside the workspace to their real path", async () => {
    await fs.symlink("src", path.join(ws.root, "alias"));
    await fs.symlink(path.join(ws.root, "src", "later.txt"), path.join(ws.root, "pending.txt"));
    expect(await resolveInWorkspace(ws, "alias/a.txt", "read")).toEqual({
      ok: true,
      path: path.join(ws.root, "src", "a.txt"),
      display: "alias/a.txt",
    });
    const pending = await resolveInWorkspace(ws, "pending.txt", "write");
    expect(pending.ok && pending.path).toBe(path.join(ws.root, "src", "later.txt"));
  });

  it("reports symlink loops as a clear error", async () => {
    await fs.symlink("loop-b", path.join(ws.root, "loop-a"));
    await fs.symlink("loop-a", path.join(ws.root, "loop-b"));
    expect(expectRefused(await resolveInWorkspace(ws, "loop-a/x", "read"))).toContain("symbolic links");
  });
});

describe("read-only roots", () => {
  let docs: string;
  let withDocs: Workspace;

  beforeEach(async () => {
    docs = path.join(base, "docs");
    await fs.mkdir(docs);
    await fs.writeFile(path.join(docs, "guide.md"), "guide");
    withDocs = await createWorkspace(ws.root, { readOnlyRoots: [docs] });
  });

  it("allows reading inside a read-only root, displayed as an absolute path", async () => {
    const target = path.join(docs, "guide.md");
    expect(await resolveInWorkspace(withDocs, target, "read")).toEqual({ ok: true, path: target, display: target });
  });

  it("refuses writing inside a read-only root", async () => {
    const error = expectRefused(await resolveInWorkspace(withDocs, path.join(docs, "guide.md"), "write"));
    expect(error).toContain("read-only");
  });

  it("refuses writing through a workspace symlink into a read-only root, but allows reading", async () => {
    await fs.symlink(docs, path.join(withDocs.root, "docs-link"));
    expect((await resolveInWorkspace(withDocs, "docs-link/guide.md", "read")).ok).toBe(true);
    expect(expectRefused(await resolveInWorkspace(withDocs, "docs-link/guide.md", "write"))).toContain("read-only");
  });

  it("keeps a read-only root nested in the workspace read-only", async () => {
    const vendor = path.join(ws.root, "vendor");
    await fs.mkdir(vendor);
    const nested = await createWorkspace(ws.root, { readOnlyRoots: [vendor] });
    expect((await resolveInWorkspace(nested, "vendor/lib.js", "read")).ok).toBe(true);
    expectRefused(await resolveInWorkspace(nested, "vendor/lib.js", "write"));
    expect((await resolveInWorkspace(nested, "src/a.txt", "write")).ok).toBe(true);
  });
});

describe("declaredPaths", () => {
  it("returns the lexical absolute path and never throws", () => {
    expect(declaredPaths(ws, "src/a.txt")).toEqual([path.join(ws.root, "src", "a.txt")]);
    expect(declaredPaths(ws, undefined)).toEqual([]);
    expect(declaredPaths(ws, 42)).toEqual([]);
  });
});
