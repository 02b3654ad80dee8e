import { mkdtemp, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { silentLogger } from "@hermes/agent";
import { openStore, type Store } from "@hermes/store";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../test/support/test-database.js";
import { SharedFilesSync } from "./shared-files-sync.js";

let home = "";
let database: TestDatabase;
let store: Store | undefined;

beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), "hermes-restore-"));
  database = await createTestDatabase();
});
afterEach(async () => {
  await store?.close();
  await database.drop();
  await rm(home, { recursive: true, force: true });
});

it("restores a conversation's attachments and its session's saved outputs, not the outputs of the key's earlier sessions", async () => {
  store = await openStore({ file: path.join(home, "state.db"), databaseUrl: database.url });
  const key = "agent:main:telegram:dm:42";
  await store.sharedFiles.put("workspace/attachments/telegram/telegram-42-7-1-photo.jpg", Buffer.from("jpeg"), { sessionKey: key });
  await store.sharedFiles.put("sessions/old-session/tool-results/call-1.txt", Buffer.from("earlier output"), { sessionKey: key });
  await store.sharedFiles.put("sessions/new-session/tool-results/call-2.txt", Buffer.from("this output"), { sessionKey: key });
  const sync = new SharedFilesSync({ files: store.sharedFiles, home, logger: silentLogger });

  expect(await sync.restoreSession(key, "new-session")).toEqual({ ok: true, restored: 2 });
  expect(await readdir(path.join(home, "sessions"))).toEqual(["new-session"]);
  expect(await readdir(path.join(home, "workspace", "attachments", "telegram"))).toEqual(["telegram-42-7-1-photo.jpg"]);
  // Without a session id (a caller that has none), everything of the key.
  expect(await sync.restoreSession(key)).toEqual({ ok: true, restored: 1 });
});
