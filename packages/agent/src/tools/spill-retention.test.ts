import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createJsonLogger } from "../observability/logger.js";
import { DEFAULT_SESSION_FOLDER_RETENTION_MS, removeExpiredSessionFolders } from "./spill-retention.js";

const DAY_MS = 24 * 60 * 60 * 1000;
const NOW = Date.parse("2031-03-01T12:00:00Z");

let base: string;
let sessions: string;

beforeEach(async () => {
  base = await fs.mkdtemp(path.join(os.tmpdir(), "hermes-"));
  sessions = path.join(base, "sessions");
});

afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

/** Writes a session folder whose files, and the folders holding them, were last changed `ageDays` ago. */
async function sessionFolder(name: string, files: Record<string, number>, folderAgeDays: number): Promise<void> {
  const folder = path.join(sessions, name);
  await fs.mkdir(path.join(folder, "tool-results"), { recursive: true });
  for (const [file, ageDays] of Object.entries(files)) {
    const target = path.join(folder, "tool-results", file);
    await fs.writeFile(target, `output of ${file}\n`);
    await setAge(target, ageDays);
  }
  await setAge(path.join(folder, "tool-results"), folderAgeDays);
  await setAge(folder, folderAgeDays);
}

async function setAge(target: string, ageDays: number): Promise<void> {
  const when = new Date(NOW - ageDays * DAY_MS);
  await fs.utimes(target, when, when);
}

describe("removeExpiredSessionFolders", () => {
  it("deletes only the folders in which nothing changed for the retention period", async () => {
    await sessionFolder("old", { "a.txt": 9, "b.txt": 8 }, 8);
    await sessionFolder("recent-file", { "a.txt": 30, "b.txt": 2 }, 30);
    await sessionFolder("recent-folder", {}, 1);
    await sessionFolder("old-empty", {}, 10);
    await fs.writeFile(path.join(sessions, "stray.txt"), "not a session folder\n");
    await setAge(path.join(sessions, "stray.txt"), 40);
    const lines: string[] = [];
    const logger = createJsonLogger({ write: (line) => void lines.push(line) });

    const removed = await removeExpiredSessionFolders(sessions, { now: () => NOW, logger });

    expect(removed).toEqual(["old", "old-empty"]);
    expect((await fs.readdir(sessions)).sort()).toEqual(["recent-file", "recent-folder", "stray.txt"]);
    expect(lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ level: "info", msg: "removed expired session folders", count: 2, maxAgeDays: 7 }),
    ]);
  });

  it("defaults to seven days and honours another limit", async () => {
    expect(DEFAULT_SESSION_FOLDER_RETENTION_MS).toBe(7 * DAY_MS);
    await sessionFolder("six-days", { "a.txt": 6 }, 6);
    expect(await removeExpiredSessionFolders(sessions, { now: () => NOW })).toEqual([]);
    expect(await removeExpiredSessionFolders(sessions, { now: () => NOW, maxAgeMs: 5 * DAY_MS })).toEqual(["six-days"]);
  });

  it("does not follow symbolic links out of a session folder", async () => {
    const outside = path.join(base, "outside");
    await fs.mkdir(outside);
    await fs.writeFile(path.join(outside, "keep.txt"), "keep\n");
    await sessionFolder("linked", { "a.txt": 20 }, 20);
    await fs.symlink(outside, path.join(sessions, "linked", "tool-results", "escape"));
    const old = new Date(NOW - 20 * DAY_MS);
    await fs.lutimes(path.join(sessions, "linked", "tool-results", "escape"), old, old);
    await setAge(path.join(sessions, "linked", "tool-results"), 20);
    expect(await removeExpiredSessionFolders(sessions, { now: () => NOW })).toEqual(["linked"]);
    expect(await fs.readFile(path.join(outside, "keep.txt"), "utf8")).toBe("keep\n");
  });

  it("does nothing when there is no sessions folder yet", async () => {
    expect(await removeExpiredSessionFolders(path.join(base, "missing"), { now: () => NOW })).toEqual([]);
  });

  it("logs, and removes nothing, when the sessions root cannot be listed", async () => {
    const lines: string[] = [];
    const logger = createJsonLogger({ write: (line) => void lines.push(line) });
    const notAFolder = path.join(base, "file-not-folder");
    await fs.writeFile(notAFolder, "x");
    expect(await removeExpiredSessionFolders(notAFolder, { now: () => NOW, logger })).toEqual([]);
    expect(lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ level: "warn", code: "ENOTDIR" }),
    ]);
  });
});
