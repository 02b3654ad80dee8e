import { mkdir, mkdtemp, readdir, rm, stat, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { silentLogger } from "@hermes/agent";
import { openStore, type Store } from "@hermes/store";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DEFAULT_SESSION_SCOPE } from "../core/session-key.js";
import { createTestDatabase, type TestDatabase } from "../../../../test/support/test-database.js";
import { pruneSessionCopies } from "./session-copies.js";
import { HomeFiles } from "./home-files.js";
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
  it("removes copies unused for the window, whatever the database holds, and keeps recent ones and other folders", async () => {
    const sync = new SharedFilesSync({ files: store.sharedFiles, home, logger: silentLogger });
    await store.sharedFiles.put(PHOTO, Buffer.from("jpeg"), { sessionKey: KEY });
    await copy(PHOTO, "jpeg", 40);
    await copy(OUTPUT, "long output", 31);
    await copy("sessions/s1/tool-results/recent.txt", "recent", 2);
    // A conversation the database's history retention deleted: its copy must not outlive it here.
    await copy("workspace/attachments/telegram/telegram-43-9-1-photo.jpg", "deleted conversation", 90);
    await copy("skills/notes/SKILL.md", "not a session file", 90);
    // Left by a crash in the middle of an earlier pruning, and one being written now.
    await copy("workspace/attachments/telegram/telegram-44-1-1-photo.jpg.0a1b2c3d4e5f.sync-tmp", "moved aside", 60);
    await copy("sessions/s1/tool-results/call-9.txt.0a1b2c3d4e5f.sync-tmp", "being written", 0);

    const removed = await pruneSessionCopies({ homeFiles: sync.homeFiles, folders: FOLDERS, logger: silentLogger }, Date.now() - 30 * DAY_MS);

    expect(removed).toBe(4);
    for (const gone of [PHOTO, OUTPUT, "workspace/attachments/telegram/telegram-43-9-1-photo.jpg", "workspace/attachments/telegram/telegram-44-1-1-photo.jpg.0a1b2c3d4e5f.sync-tmp"]) expect({ gone, present: await exists(gone) }).toEqual({ gone, present: false });
    for (const kept of ["sessions/s1/tool-results/recent.txt", "skills/notes/SKILL.md", "sessions/s1/tool-results/call-9.txt.0a1b2c3d4e5f.sync-tmp"]) expect({ kept, present: await exists(kept) }).toEqual({ kept, present: true });
    // The folders stay for the files about to be written into them.
    expect(await readdir(path.join(home, "workspace", "attachments", "telegram"))).toEqual([]);
  });

  it("a run marks the copies it finds as used, and restores a pruned one before it starts", async () => {
    const sync = new SharedFilesSync({ files: store.sharedFiles, home, logger: silentLogger });
    await store.sharedFiles.put(PHOTO, Buffer.from("jpeg"), { sessionKey: KEY });
    await store.sharedFiles.put(OUTPUT, Buffer.from("long output"), { sessionKey: KEY });
    await copy(PHOTO, "jpeg", 40);
    await copy(OUTPUT, "long output", 40);
    const deps = { homeFiles: sync.homeFiles, folders: FOLDERS, logger: silentLogger };

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
    // The conversation's next run starts right after the pruning listed the copy (a long listing of a big home).
    const homeFiles = new (class extends HomeFiles {
      override async unusedSince(folder: string, cutoffMs: number) {
        const listed = await super.unusedSince(folder, cutoffMs);
        expect(await sync.restoreSession(KEY, "s1")).toEqual({ ok: true, restored: 0 });
        return listed;
      }
    })(home);
    expect(await pruneSessionCopies({ homeFiles, folders: FOLDERS, logger: silentLogger }, Date.now() - 30 * DAY_MS)).toBe(0);
    expect(await exists(PHOTO)).toBe(true);
    expect(await readdir(path.join(home, "workspace", "attachments", "telegram"))).toEqual(["telegram-42-7-1-photo.jpg"]);
  });

  it("stops between files once its signal is aborted", async () => {
    const sync = new SharedFilesSync({ files: store.sharedFiles, home, logger: silentLogger });
    await store.sharedFiles.put(PHOTO, Buffer.from("jpeg"), { sessionKey: KEY });
    await copy(PHOTO, "jpeg", 40);
    const deps = { homeFiles: sync.homeFiles, folders: FOLDERS, logger: silentLogger };
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
    await copy("sessions/s1/tool-results/fresh.txt", "fresh", 29);
    const stop = shared.pruneCopies({ firstDelayMs: 0 });
    try {
      // Generous: the machine may be busy.
      await vi.waitFor(async () => expect({ photo: await exists(PHOTO), output: await exists(OUTPUT) }).toEqual({ photo: false, output: false }), { timeout: 15_000, interval: 50 });
      expect(await exists("sessions/s1/tool-results/fresh.txt")).toBe(true);
    } finally {
      stop();
    }
  });
});
