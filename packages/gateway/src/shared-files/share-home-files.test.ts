import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { silentLogger } from "@hermes/agent";
import { openStore, type Store } from "@hermes/store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../test/support/test-database.js";
import { checkHomeFilesShareable, shareHomeFiles } from "./share-home-files.js";
import { SharedFilesSync } from "./shared-files-sync.js";

let root = "";
let database: TestDatabase;
let store: Store;

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "hermes-share-home-"));
  database = await createTestDatabase();
  store = await openStore({ file: path.join(root, "unused.db"), databaseUrl: database.url });
});
afterEach(async () => {
  await store.close();
  await database.drop();
  await rm(root, { recursive: true, force: true });
});

async function put(file: string, content: string | Buffer): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
}

describe("shareHomeFiles (moving an install to PostgreSQL)", () => {
  it("brings the agent-made skills and the hook state into the database, where an empty home on another machine gets them", async () => {
    const old = path.join(root, "old-home");
    await put(path.join(old, "skills", "brew-tea", "SKILL.md"), "---\nname: brew-tea\ndescription: tea\n---\n\nSteep.\n");
    await put(path.join(old, "skills", "brew-tea", "scripts", "timer.sh"), Buffer.from([0x23, 0x21, 0, 0xff]));
    await put(path.join(old, "hooks", "state.json"), '{"disabled":["audit-log"],"enabled":[]}\n');
    // Not agent-made skills or hook state: the operator's hook folders, the parse cache, memory, logs.
    await put(path.join(old, "hooks", "notify", "HOOK.yaml"), "name: notify\n");
    await put(path.join(old, "cache", "skills-index.json"), "{}");
    await put(path.join(old, "logs", "gateway.log"), "log");

    expect(await shareHomeFiles(store.sharedFiles, old)).toEqual({ ok: true, files: 3, bytes: expect.any(Number), unchanged: 0 });
    const fresh = path.join(root, "new-home");
    const pulled = await new SharedFilesSync({ files: store.sharedFiles, home: fresh, logger: silentLogger }).pull();
    expect(pulled.ok && [...pulled.written].sort()).toEqual(["hooks/state.json", "skills/brew-tea/SKILL.md", "skills/brew-tea/scripts/timer.sh"]);
    expect(await readFile(path.join(fresh, "skills", "brew-tea", "scripts", "timer.sh"))).toEqual(Buffer.from([0x23, 0x21, 0, 0xff]));

    // Again (a copy finished later): only what differs is written.
    await put(path.join(old, "hooks", "state.json"), '{"disabled":[],"enabled":[]}\n');
    expect(await shareHomeFiles(store.sharedFiles, old)).toMatchObject({ ok: true, files: 1, unchanged: 2 });
  });

  it("stops at a file over the size cap, naming it", async () => {
    const old = path.join(root, "old-home");
    await put(path.join(old, "skills", "huge", "SKILL.md"), Buffer.alloc(21 * 1024 * 1024));
    // Found beforehand, writing nothing (for hermes db copy, before the tables).
    expect(await checkHomeFilesShareable(old)).toMatchObject({ ok: false, path: "skills/huge/SKILL.md" });
    expect(await store.sharedFiles.listUnder("skills/")).toEqual([]);
    const result = await shareHomeFiles(store.sharedFiles, old);
    expect(result).toMatchObject({ ok: false, path: "skills/huge/SKILL.md" });
    expect(result.ok ? "" : result.error).toContain("over the 20971520-byte limit");
  });

  it("has nothing to do for a home without skills or hook state", async () => {
    expect(await shareHomeFiles(store.sharedFiles, path.join(root, "missing"))).toEqual({ ok: true, files: 0, bytes: 0, unchanged: 0 });
    expect(await checkHomeFilesShareable(path.join(root, "missing"))).toEqual({ ok: true, files: 0 });
  });
});
