import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fileMemoryDocuments } from "./file-memory-documents.js";
import { memoryDocumentKey } from "./memory-documents.js";

let root: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), "hermes-docs-"));
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

describe("fileMemoryDocuments", () => {
  it("stores a file only while it is still the text read; a hand edit in between is a conflict", async () => {
    const documents = fileMemoryDocuments(root);
    expect(await documents.read("users/telegram/1/MEMORY.md")).toBeUndefined();
    const created = await documents.write("users/telegram/1/MEMORY.md", "§ one\n", undefined);
    expect(created.ok).toBe(true);
    expect(await documents.write("users/telegram/1/MEMORY.md", "§ two\n", undefined)).toEqual({ ok: false, reason: "conflict" });
    const read = await documents.read("users/telegram/1/MEMORY.md");
    expect(read?.text).toBe("§ one\n");
    await fs.writeFile(path.join(root, "users", "telegram", "1", "MEMORY.md"), "§ edited by hand\n");
    expect(await documents.write("users/telegram/1/MEMORY.md", "§ one\n§ mine\n", read?.version)).toEqual({ ok: false, reason: "conflict" });
    const again = await documents.read("users/telegram/1/MEMORY.md");
    expect(await documents.write("users/telegram/1/MEMORY.md", "§ edited by hand\n§ mine\n", again?.version)).toMatchObject({ ok: true });
    expect(await fs.readFile(path.join(root, "users", "telegram", "1", "MEMORY.md"), "utf8")).toBe("§ edited by hand\n§ mine\n");
  });

  it("lists the memory files under a prefix (not lock or temp files) and removes one", async () => {
    const documents = fileMemoryDocuments(root);
    for (const key of ["MEMORY.md", "users/telegram/1/MEMORY.md", "users/telegram/1/USER.md", "users/telegram/12/USER.md", "chats/telegram/-5/MEMORY.md"]) {
      await documents.write(key, "§ x\n", undefined);
    }
    await fs.writeFile(path.join(root, "users", "telegram", "1", "MEMORY.md.lock"), "{}");
    await fs.writeFile(path.join(root, "users", "telegram", "1", ".MEMORY.md.abc.tmp"), "");
    expect(await documents.list("users/telegram/1/")).toEqual(["users/telegram/1/MEMORY.md", "users/telegram/1/USER.md"]);
    expect(await documents.list("users/telegram/1")).toEqual(["users/telegram/1/MEMORY.md", "users/telegram/1/USER.md", "users/telegram/12/USER.md"]);
    expect(await documents.list("")).toHaveLength(5);
    expect(await documents.list("nowhere/")).toEqual([]);
    expect(await documents.remove("users/telegram/1/USER.md")).toBe(true);
    expect(await documents.remove("users/telegram/1/USER.md")).toBe(false);
    expect(await documents.list("users/telegram/1/")).toEqual(["users/telegram/1/MEMORY.md"]);
  });

  it("does not wait for its own lock when writing inside exclusive", async () => {
    const documents = fileMemoryDocuments(root, { timeoutMs: 200 });
    const outcome = await documents.exclusive?.("MEMORY.md", () => documents.write("MEMORY.md", "§ inside\n", undefined));
    expect(outcome).toMatchObject({ ok: true, value: { ok: true } });
    // Another writer meanwhile waits for the lock (and gives up here, its timeout being short).
    let release: () => void = () => undefined;
    let entered: () => void = () => undefined;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const holding = documents.exclusive?.("MEMORY.md", () => new Promise<void>((resolve) => {
      release = resolve;
      entered();
    }));
    await inside;
    const other = fileMemoryDocuments(root, { timeoutMs: 50, retryDelayMs: 5 });
    expect(await other.write("MEMORY.md", "§ other\n", (await documents.read("MEMORY.md"))?.version)).toEqual({ ok: false, reason: "busy" });
    release();
    await holding;
    expect(await fs.readFile(path.join(root, "MEMORY.md"), "utf8")).toBe("§ inside\n");
  });
});

describe("memoryDocumentKey", () => {
  it("is the path below the root with / separators, and refuses a path outside it", () => {
    expect(memoryDocumentKey("/h/memory", "/h/memory/users/telegram/1/MEMORY.md")).toBe("users/telegram/1/MEMORY.md");
    expect(memoryDocumentKey("/h/memory", "/h/memory/MEMORY.md")).toBe("MEMORY.md");
    expect(() => memoryDocumentKey("/h/memory", "/h/other/MEMORY.md")).toThrow(/not below the memory root/);
    expect(() => memoryDocumentKey("/h/memory", "/h/memory")).toThrow(/not below/);
  });
});
