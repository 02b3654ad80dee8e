import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { capturingLogger } from "../outbound/testing.js";
import { HOME_LOCK_FILE, processIsAlive, takeHomeLock } from "./home-lock.js";

let home: string;

beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), "hermes-home-lock-"));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

const SINCE = Date.parse("2026-01-02T03:04:05.000Z");

describe("takeHomeLock", () => {
  it("lets one gateway hold a HERMES_HOME; a second is refused with the holder's pid, host and since", async () => {
    const { logger } = capturingLogger();
    const first = await takeHomeLock(home, { logger, pid: 4101, hostname: "box", now: () => SINCE, isAlive: () => true });
    expect(first.ok).toBe(true);
    const written = JSON.parse(await readFile(path.join(home, HOME_LOCK_FILE), "utf8")) as unknown;
    expect(written).toEqual({ pid: 4101, hostname: "box", since: "2026-01-02T03:04:05.000Z" });

    const second = await takeHomeLock(home, { logger, pid: 4202, hostname: "box", isAlive: () => true });
    expect(second).toEqual({ ok: false, file: path.join(home, HOME_LOCK_FILE), holder: { pid: 4101, hostname: "box", since: "2026-01-02T03:04:05.000Z" } });
    // Nothing of the refused attempt is left behind.
    expect(await readdir(home)).toEqual([HOME_LOCK_FILE]);

    if (first.ok) await first.lock.release();
    expect(await readdir(home)).toEqual([]);
    expect((await takeHomeLock(home, { logger, pid: 4202, hostname: "box", isAlive: () => true })).ok).toBe(true);
  });

  it("takes over a lock whose process on this host is gone, and says so in the log", async () => {
    await writeFile(path.join(home, HOME_LOCK_FILE), JSON.stringify({ pid: 999_999, hostname: "box", since: "2025-12-31T00:00:00.000Z" }));
    const { logger, entries } = capturingLogger();
    const taken = await takeHomeLock(home, { logger, pid: 4303, hostname: "box", isAlive: (pid) => pid !== 999_999 });
    expect(taken.ok).toBe(true);
    expect(JSON.parse(await readFile(path.join(home, HOME_LOCK_FILE), "utf8"))).toMatchObject({ pid: 4303 });
    expect(entries).toContainEqual(expect.objectContaining({ level: "warn", msg: "took over a stale gateway lock", previous: expect.objectContaining({ pid: 999_999 }) }));
  });

  it("takes over a lock naming its own pid (a container restarted with the gateway as pid 1 again)", async () => {
    await writeFile(path.join(home, HOME_LOCK_FILE), JSON.stringify({ pid: 1, hostname: "box", since: "2025-12-31T00:00:00.000Z" }));
    const taken = await takeHomeLock(home, { logger: capturingLogger().logger, pid: 1, hostname: "box", isAlive: () => true });
    expect(taken.ok).toBe(true);
  });

  it("does not take over a lock held from another host, whose process it cannot check", async () => {
    await writeFile(path.join(home, HOME_LOCK_FILE), JSON.stringify({ pid: 999_999, hostname: "elsewhere", since: "2025-12-31T00:00:00.000Z" }));
    const taken = await takeHomeLock(home, { logger: capturingLogger().logger, pid: 4404, hostname: "box", isAlive: () => false });
    expect(taken).toMatchObject({ ok: false, holder: { pid: 999_999, hostname: "elsewhere" } });
  });

  it("replaces an unreadable lock file, which names no process", async () => {
    await writeFile(path.join(home, HOME_LOCK_FILE), "{not json");
    const taken = await takeHomeLock(home, { logger: capturingLogger().logger, pid: 4505, hostname: "box", isAlive: () => true });
    expect(taken.ok).toBe(true);
  });

  it("does not remove a lock another process took over after this one lost it", async () => {
    const { logger } = capturingLogger();
    const first = await takeHomeLock(home, { logger, pid: 4606, hostname: "box", isAlive: () => true });
    await writeFile(path.join(home, HOME_LOCK_FILE), JSON.stringify({ pid: 4707, hostname: "box", since: "2026-01-01T00:00:00.000Z" }));
    if (first.ok) await first.lock.release();
    expect(JSON.parse(await readFile(path.join(home, HOME_LOCK_FILE), "utf8"))).toMatchObject({ pid: 4707 });
  });

  it("of many processes racing for a free home, exactly one wins", async () => {
    const { logger } = capturingLogger();
    const results = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => takeHomeLock(home, { logger, pid: 5000 + n, hostname: "box", isAlive: () => true })));
    expect(results.filter((result) => result.ok)).toHaveLength(1);
  });
});

describe("processIsAlive", () => {
  it("knows this process is alive and an impossible pid is not", () => {
    expect(processIsAlive(process.pid)).toBe(true);
    expect(processIsAlive(-1)).toBe(false);
    expect(processIsAlive(2 ** 30)).toBe(false);
  });
});
