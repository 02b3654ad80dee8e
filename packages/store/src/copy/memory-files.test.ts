import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { readMemoryScope, userMemoryScope, memoryScopeOf } from "@hermes/agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../test/support/test-database.js";
import { openStore } from "../open-store.js";
import type { Store } from "../store.js";
import { copySqliteToPostgres } from "./copy-to-postgres.js";

let dir: string;
let database: TestDatabase;
const stores: Store[] = [];

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "hermes-copymem-"));
  database = await createTestDatabase();
});
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  await database.drop();
  await rm(dir, { recursive: true, force: true });
});

async function open(options: { file: string; databaseUrl?: string }): Promise<Store> {
  const store = await openStore(options);
  stores.push(store);
  return store;
}

/** An install that kept memory in files, as DESIGN.md lays them out, with a lock and a temp file beside them. */
async function memoryFolder(): Promise<string> {
  const memoryDir = path.join(dir, "home", "memory");
  const files: Record<string, string> = {
    "users/telegram/42/MEMORY.md": "§ Works on Nightingale\n§ Deploys on Fridays\n",
    "users/telegram/42/USER.md": "§ Prefers tea\u0000 with milk\n",
    "users/slack/U1/USER.md": "§ Writes in French\n",
    "chats/telegram/-100/MEMORY.md": "§ The group meets on Mondays\n",
    "MEMORY.md": "§ Written before scopes existed\n",
    "users/telegram/42/MEMORY.md.lock": "{}",
    "users/telegram/42/.MEMORY.md.0a1b.tmp": "§ half",
    "users/telegram/42/notes.txt": "not memory",
  };
  for (const [key, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(memoryDir, key)), { recursive: true });
    await writeFile(path.join(memoryDir, key), text);
  }
  return memoryDir;
}

describe("hermes db copy with the install's memory files", () => {
  it("brings every MEMORY.md and USER.md into memory_documents, counted with the table, so the scopes read the same entries", async () => {
    const file = path.join(dir, "home", "state.db");
    await (await open({ file })).close();
    const memoryDir = await memoryFolder();
    const copied = await copySqliteToPostgres({ file, databaseUrl: database.url, memoryDir, now: () => 1_700_000_000_000 });
    if (!copied.ok) throw new Error(copied.error.message);
    expect(copied.tables.find((count) => count.table === "memory_documents")).toEqual({
      table: "memory_documents",
      sqliteRows: 5,
      postgresRows: 5,
      valuesWithNulRemoved: 1,
      fromFiles: 5,
    });

    const store = await open({ file, databaseUrl: database.url });
    expect(await store.memoryDocuments.list("")).toEqual([
      "MEMORY.md",
      "chats/telegram/-100/MEMORY.md",
      "users/slack/U1/USER.md",
      "users/telegram/42/MEMORY.md",
      "users/telegram/42/USER.md",
    ]);
    // Any root works for the keys: a worker's empty home reads what the install's files said.
    const root = path.join(dir, "elsewhere", "memory");
    const storage = { root, documents: store.memoryDocuments };
    const ada = await readMemoryScope(userMemoryScope(root, "telegram", "42"), storage);
    expect({ memory: ada.memory?.entries, user: ada.user?.entries }).toEqual({ memory: ["Works on Nightingale", "Deploys on Fridays"], user: ["Prefers tea with milk"] });
    const group = await readMemoryScope(memoryScopeOf("chat", root, { platform: "telegram", userId: "42", chatId: "-100", sharedSession: true, directChat: false }), storage);
    expect(group.memory?.entries).toEqual(["The group meets on Mondays"]);
  });

  it("adds nothing when the memory folder does not exist", async () => {
    const file = path.join(dir, "home", "state.db");
    await (await open({ file })).close();
    const copied = await copySqliteToPostgres({ file, databaseUrl: database.url, memoryDir: path.join(dir, "home", "memory") });
    if (!copied.ok) throw new Error(copied.error.message);
    expect(copied.tables.find((count) => count.table === "memory_documents")).toEqual({ table: "memory_documents", sqliteRows: 0, postgresRows: 0, valuesWithNulRemoved: 0 });
  });
});
