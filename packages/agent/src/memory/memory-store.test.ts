import { execFile } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { errorCode } from "../builtin-tools/fs-errors.js";
import { parseEntries } from "./memory-entries.js";
import { expectError, memoryStoreBehaviours } from "./memory-store-behaviours.js";
import { MemoryStore } from "./memory-store.js";

const run = promisify(execFile);
let dir: string;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "hermes-"));
});

afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const memoryFile = (): Promise<string> => fs.readFile(path.join(dir, "MEMORY.md"), "utf8");

describe("MemoryStore on files", () => {
  memoryStoreBehaviours(() => ({
    store: (options = {}) => new MemoryStore({ dir, ...options }),
    stored: (name) => readIfPresent(path.join(dir, name)),
    handWrite: (name, text) => fs.writeFile(path.join(dir, name), text),
  }));
});

describe("MemoryStore", () => {
  it("reads a missing file as empty and creates the folder on the first write", async () => {
    const nested = path.join(dir, "home", "memory");
    const store = new MemoryStore({ dir: nested });
    const read = await store.read("user");
    expect(read).toMatchObject({ ok: true, state: { text: "", entries: [], chars: 0, limit: 1375, fileName: "USER.md" } });
    await store.add("user", "Name: Ada");
    expect(await fs.readFile(path.join(nested, "USER.md"), "utf8")).toBe("§ Name: Ada\n");
  });

  it("leaves no temp or lock files behind", async () => {
    const store = new MemoryStore({ dir });
    await store.add("memory", "one");
    await store.replace("memory", "one", "two");
    await store.remove("memory", "two");
    expect(await fs.readdir(dir)).toEqual(["MEMORY.md"]);
    expect(await memoryFile()).toBe("");
  });

  it("reads a file that appeared after a read found none, and reports a file in the folder's place as a failure", async () => {
    const store = new MemoryStore({ dir });
    expect(await store.read("memory")).toMatchObject({ ok: true, state: { text: "" } });
    await fs.writeFile(path.join(dir, "MEMORY.md"), "§ Written by hand\n");
    expect(await store.read("memory")).toMatchObject({ ok: true, state: { entries: ["Written by hand"] } });
    await fs.writeFile(path.join(dir, "plain"), "not a folder");
    expect(await new MemoryStore({ dir: path.join(dir, "plain") }).read("memory")).toMatchObject({ ok: false, code: "io" });
  });

  it("reports a file-system failure as a value", async () => {
    await fs.mkdir(path.join(dir, "USER.md"));
    const store = new MemoryStore({ dir });
    expect(await store.read("user")).toMatchObject({ ok: false, code: "io" });
    expectError(await store.add("user", "x"), "io");
  });

  it("keeps every entry when independent store instances write at the same time", async () => {
    const writers = [new MemoryStore({ dir }), new MemoryStore({ dir }), new MemoryStore({ dir })];
    const results = await Promise.all(
      writers.flatMap((store, w) => Array.from({ length: 12 }, (_, i) => store.add("memory", `writer ${w} fact ${i}`))),
    );
    expect(results.every((result) => result.ok && result.changed)).toBe(true);
    const text = await memoryFile();
    const entries = parseEntries(text);
    expect(entries).toHaveLength(36);
    expect(new Set(entries).size).toBe(36);
    expect(text.split("\n").filter((line) => line !== "").every((line) => line.startsWith("§ "))).toBe(true);
    expect(await fs.readdir(dir)).toEqual(["MEMORY.md"]);
  });

  it("keeps every entry when two processes write at the same time", async () => {
    const storeModule = path.join(path.dirname(fileURLToPath(import.meta.url)), "memory-store.ts");
    const barrier = path.join(dir, "barrier");
    await fs.mkdir(barrier);
    const memoryDir = path.join(dir, "memory");
    // Both processes wait at a barrier before writing, so their writes overlap despite different start-up times.
    const script = [
      "import { promises as fs } from 'node:fs';",
      `const { MemoryStore } = await import(${JSON.stringify(storeModule)});`,
      "const [memoryDir, barrier, name] = process.argv.slice(1);",
      "await fs.writeFile(`${barrier}/${name}`, '');",
      "while ((await fs.readdir(barrier)).length < 2) await new Promise((resolve) => setTimeout(resolve, 5));",
      "const store = new MemoryStore({ dir: memoryDir });",
      "for (let i = 0; i < 25; i++) {",
      "  const result = await store.add('memory', `${name} entry ${i}`);",
      "  if (!result.ok || !result.changed) { console.error(JSON.stringify(result)); process.exit(1); }",
      "}",
    ].join("\n");
    const child = (name: string) =>
      run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script, memoryDir, barrier, name], { cwd: process.cwd() });
    await Promise.all([child("alpha"), child("beta")]);
    const text = await fs.readFile(path.join(memoryDir, "MEMORY.md"), "utf8");
    expect(text.split("\n").filter((line) => line !== "").every((line) => line.startsWith("§ "))).toBe(true);
    const entries = parseEntries(text);
    expect(entries).toHaveLength(50);
    for (const name of ["alpha", "beta"]) {
      const own = entries.filter((entry) => entry.startsWith(name));
      // Each process's entries keep their order even though the two interleave.
      expect(own).toEqual(Array.from({ length: 25 }, (_, i) => `${name} entry ${i}`));
    }
  });
});

async function readIfPresent(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, "utf8");
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
}
