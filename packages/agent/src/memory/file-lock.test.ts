import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { withFileLock, type FileLockOptions } from "./file-lock.js";

let dir: string;
let lockPath: string;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "hermes-"));
  lockPath = path.join(dir, "MEMORY.md.lock");
});

afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

/** A clock that only moves when the lock sleeps, so waiting is instant and exact. */
function fakeTime(start: number): FileLockOptions & { sleeps: number[] } {
  let now = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
    random: () => 0.5,
  };
}

describe("withFileLock", () => {
  it("holds the lock file while the critical section runs and removes it afterwards", async () => {
    const outcome = await withFileLock(lockPath, async () => {
      const holder = JSON.parse(await fs.readFile(lockPath, "utf8")) as { pid: number };
      return holder.pid;
    });
    expect(outcome).toEqual({ ok: true, value: process.pid });
    await expect(fs.stat(lockPath)).rejects.toThrow();
  });

  it("releases the lock when the critical section throws, and rethrows", async () => {
    await expect(withFileLock(lockPath, async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    await expect(fs.stat(lockPath)).rejects.toThrow();
  });

  it("waits with short jittered sleeps for a fresh lock and gives up after the timeout as a value", async () => {
    await fs.writeFile(lockPath, JSON.stringify({ pid: 1, token: "other" }));
    const time = fakeTime(Date.now());
    let ran = false;
    const outcome = await withFileLock(lockPath, async () => {
      ran = true;
    }, { ...time, timeoutMs: 200, retryDelayMs: 20 });
    expect(outcome.ok).toBe(false);
    expect(ran).toBe(false);
    expect(time.sleeps.length).toBe(10);
    expect(time.sleeps.every((ms) => ms === 20)).toBe(true);
    expect(await fs.readFile(lockPath, "utf8")).toContain("other");
  });

  it("gets the lock once the other holder lets go", async () => {
    await fs.writeFile(lockPath, "held");
    const time = fakeTime(Date.now());
    const sleep = time.sleep;
    const outcome = await withFileLock(lockPath, async () => "mine", {
      ...time,
      sleep: async (ms) => {
        await sleep?.(ms);
        if (time.sleeps.length === 3) await fs.rm(lockPath);
      },
    });
    expect(outcome).toEqual({ ok: true, value: "mine" });
    expect(time.sleeps).toHaveLength(3);
  });

  it("breaks a lock older than 10 s left by a crashed writer", async () => {
    await fs.writeFile(lockPath, JSON.stringify({ pid: 999999, token: "crashed" }));
    const past = new Date(Date.now() - 60_000);
    await fs.utimes(lockPath, past, past);
    const outcome = await withFileLock(lockPath, async () => fs.readFile(lockPath, "utf8"), fakeTime(Date.now()));
    expect(outcome.ok).toBe(true);
    if (outcome.ok) expect(outcome.value).not.toContain("crashed");
    expect(await fs.readdir(dir)).toEqual([]);
  });

  it("does not break a lock younger than the stale age", async () => {
    await fs.writeFile(lockPath, "fresh");
    const mtime = (await fs.stat(lockPath)).mtimeMs;
    const outcome = await withFileLock(lockPath, async () => "mine", { ...fakeTime(mtime + 9_000), timeoutMs: 500 });
    expect(outcome.ok).toBe(false);
    expect(await fs.readFile(lockPath, "utf8")).toBe("fresh");
  });

  it("serialises critical sections of concurrent callers in one process", async () => {
    let inside = 0;
    let maxInside = 0;
    const section = async (): Promise<void> => {
      inside++;
      maxInside = Math.max(maxInside, inside);
      await new Promise((resolve) => setImmediate(resolve));
      inside--;
    };
    const outcomes = await Promise.all(Array.from({ length: 8 }, () => withFileLock(lockPath, section, { retryDelayMs: 2 })));
    expect(outcomes.every((outcome) => outcome.ok)).toBe(true);
    expect(maxInside).toBe(1);
  });
});
