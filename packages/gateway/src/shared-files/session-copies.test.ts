import { mkdir, mkdtemp, readdir, rm, stat, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { silentLogger } from "@hermes/agent";
import { openStore, type Store } from "@hermes/store";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DEFAULT_SESSION_SCOPE } from "../core/session-key.js";
import { createTestDatabase, type TestDatabase } from "../../../../test/support/test-database.js";
import { pruneSessionCopies } from "./session-copies.js";
import { SharedFilesSync } from "./shared-files-sync.js";
import { sharedFilesFor } from "./shared-files-wiring.js";

const DAY_MS = 86_400_000;
const KEY = "agent:main:telegram:dm:42";
const PHOTO = "workspace/attachments/telegram/telegram-42-7-1-photo.jpg";
const OUTPUT = "sessions/s1/tool-results/call-1.txt";
const FOLDERS = ["sessions", "workspace/attachments"];

let home = "";
let database: TestDatabase;
let store: Store;

beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), "hermes-copies-"));
  database = await createTestDatabase();
  store = await openStore({ file: path.join(home, "state.db"), databaseUrl: database.url });
});
afterEach(async () => {
  await store.close();
  await database.drop();
  await rm(home, { recursive: true, force: true });
});

/** A file in this home, last written `daysAgo` days ago. */
async function copy(sharedPath: string, content: string, daysAgo: number): Promise<void> {
  const file = path.join(home, ...sharedPath.split("/"));
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
  const at = new Date(Date.now() - daysAgo * DAY_MS);
  await utimes(file, at, at);
}

const exists = (sharedPath: string): Promise<boolean> => stat(path.join(home, ...sharedPath.split("/"))).then(() => true, () => false);

describe("pruning a home's copies of session files (HERMES_DATABASE_URL)", () => {
  it("removes copies unused for the window that the database holds, keeps recent ones and files only this home has", async () => {
    const sync = new SharedFilesSync({ files: store.sharedFiles, home, logger: silentLogger });
    await store.sharedFiles.put(PHOTO, Buffer.from("jpeg"), { sessionKey: KEY });
    await store.sharedFiles.put(OUTPUT, Buffer.from("long output"), { sessionKey: KEY });
    await store.sharedFiles.put("sessions/s1/tool-results/recent.txt", Buffer.from("recent"), { sessionKey: KEY });
    await store.sharedFiles.put("workspace/attachments/telegram/changed.txt", Buffer.from("the database's version"), { sessionKey: KEY });
    await store.sharedFiles.put("workspace/attachments/telegram/removed.txt", Buffer.from("gone"), { sessionKey: KEY });
    await store.sharedFiles.remove("workspace/attachments/telegram/removed.txt");
    await copy(PHOTO, "jpeg", 40);
    await copy(OUTPUT, "long output", 31);
    await copy("sessions/s1/tool-results/recent.txt", "recent", 2);
    await copy("workspace/attachments/telegram/local-only.txt", "never shared", 90);
    await copy("workspace/attachments/telegram/changed.txt", "a different copy", 90);
    await copy("workspace/attachments/telegram/removed.txt", "gone", 90);
    await copy("skills/notes/SKILL.md", "not a session file", 90);

    const removed = await pruneSessionCopies({ files: store.sharedFiles, homeFiles: sync.homeFiles, folders: FOLDERS, logger: silentLogger }, Date.now() - 30 * DAY_MS);

    expect(removed).toBe(2);
    expect(await exists(PHOTO)).toBe(false);
    expect(await exists(OUTPUT)).toBe(false);
    for (const kept of ["sessions/s1/tool-results/recent.txt", "workspace/attachments/telegram/local-only.txt", "workspace/attachments/telegram/changed.txt", "workspace/attachments/telegram/removed.txt", "skills/notes/SKILL.md"]) {
      expect({ kept, present: await exists(kept) }).toEqual({ kept, present: true });
    }
    // The folders stay for the files about to be written into them.
    expect(await readdir(path.join(home, "workspace", "attachments", "telegram"))).not.toContain("telegram-42-7-1-photo.jpg");
  });

  it("a run marks the copies it finds as used, and restores a pruned one before it starts", async () => {
    const sync = new SharedFilesSync({ files: store.sharedFiles, home, logger: silentLogger });
    await store.sharedFiles.put(PHOTO, Buffer.from("jpeg"), { sessionKey: KEY });
    await store.sharedFiles.put(OUTPUT, Buffer.from("long output"), { sessionKey: KEY });
    await copy(PHOTO, "jpeg", 40);
    await copy(OUTPUT, "long output", 40);
    const deps = { files: store.sharedFiles, homeFiles: sync.homeFiles, folders: FOLDERS, logger: silentLogger };

    // The photo's conversation ran again today: its copy is in use and stays; the other session's output goes.
    expect(await sync.restoreSession(KEY, "s2")).toEqual({ ok: true, restored: 0 });
    expect(await pruneSessionCopies(deps, Date.now() - 30 * DAY_MS)).toBe(1);
    expect(await exists(PHOTO)).toBe(true);
    expect(await exists(OUTPUT)).toBe(false);

    // Once pruned anyway, the next run of its session brings it back.
    expect(await pruneSessionCopies(deps, Date.now() + DAY_MS)).toBe(1);
    expect(await exists(PHOTO)).toBe(false);
    expect(await sync.restoreSession(KEY, "s1")).toEqual({ ok: true, restored: 2 });
    expect(await exists(PHOTO)).toBe(true);
    expect(await exists(OUTPUT)).toBe(true);
  });

  it("keeps a copy a run marked as used after the pruning listed it as unused", async () => {
    const sync = new SharedFilesSync({ files: store.sharedFiles, home, logger: silentLogger });
    await store.sharedFiles.put(PHOTO, Buffer.from("jpeg"), { sessionKey: KEY });
    await copy(PHOTO, "jpeg", 40);
    // The conversation's next run starts while the pruning asks the database about the copy it listed.
    const files = {
      listUnder: async (prefix: string) => {
        const held = await store.sharedFiles.listUnder(prefix);
        expect(await sync.restoreSession(KEY, "s1")).toEqual({ ok: true, restored: 0 });
        return held;
      },
    };
    expect(await pruneSessionCopies({ files, homeFiles: sync.homeFiles, folders: FOLDERS, logger: silentLogger }, Date.now() - 30 * DAY_MS)).toBe(0);
    expect(await exists(PHOTO)).toBe(true);
    expect(await readdir(path.join(home, "workspace", "attachments", "telegram"))).toEqual(["telegram-42-7-1-photo.jpg"]);
  });

  it("stops between files once its signal is aborted", async () => {
    const sync = new SharedFilesSync({ files: store.sharedFiles, home, logger: silentLogger });
    await store.sharedFiles.put(PHOTO, Buffer.from("jpeg"), { sessionKey: KEY });
    await copy(PHOTO, "jpeg", 40);
    const deps = { files: store.sharedFiles, homeFiles: sync.homeFiles, folders: FOLDERS, logger: silentLogger };
    expect(await pruneSessionCopies(deps, Date.now() - 30 * DAY_MS, AbortSignal.abort())).toBe(0);
    expect(await exists(PHOTO)).toBe(true);
  });

  it("runs in every process with the database, on HERMES_RETENTION_DAYS, until stopped", async () => {
    const config = { databaseUrl: database.url, home, paths: { workspace: path.join(home, "workspace") } as never, sessionScope: DEFAULT_SESSION_SCOPE, retention: { days: 30 } };
    const shared = sharedFilesFor(config, { store, logger: silentLogger });
    if (!shared) throw new Error("expected shared files with a database URL");
    await store.sharedFiles.put(PHOTO, Buffer.from("jpeg"), { sessionKey: KEY });
    await copy(PHOTO, "jpeg", 31);
    await copy(OUTPUT, "long output", 31);
    const stop = shared.pruneCopies({ firstDelayMs: 0 });
    try {
      // Generous: the machine may be busy, and the pruning asks the database about each copy.
      await vi.waitFor(async () => expect(await exists(PHOTO)).toBe(false), { timeout: 15_000, interval: 50 });
      // Never shared, so the only copy: it stays.
      expect(await exists(OUTPUT)).toBe(true);
    } finally {
      stop();
    }
  });
});
