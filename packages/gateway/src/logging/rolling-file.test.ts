import { lstat, mkdtemp, readFile, readdir, readlink, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { setImmediate as nextTurn } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createGatewayLogger } from "./create-logger.js";
import { openRollingLogFile, type RollingLogFile } from "./rolling-file.js";

let dir = "";
const opened: RollingLogFile[] = [];
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "hermes-roll-"));
});
afterEach(async () => {
  for (const file of opened.splice(0)) file.close();
  await rm(dir, { recursive: true, force: true });
});

const LINE = `${"x".repeat(99)}\n`;

async function open(name: string, options: { maxBytes?: number; keep?: number } = {}): Promise<{ file: RollingLogFile; errors: Error[] }> {
  const errors: Error[] = [];
  const file = await openRollingLogFile({ dir, name, maxBytes: options.maxBytes ?? 1000, keep: options.keep ?? 3, onError: (error) => void errors.push(error) });
  opened.push(file);
  return { file, errors };
}

/** Writes `count` lines, one per event-loop turn: pino-roll decides to roll between writes, not in the middle of a burst. */
async function writeLines(file: RollingLogFile, count: number, label = ""): Promise<void> {
  for (let i = 0; i < count; i++) {
    file.write(label ? `${label} ${i}\n` : LINE);
    await nextTurn();
  }
}

async function numbered(name: string): Promise<string[]> {
  const pattern = new RegExp(`^${name}\\.\\d+\\.log$`);
  const names = (await readdir(dir)).filter((entry) => pattern.test(entry));
  return names.sort((a, b) => Number(a.split(".")[1]) - Number(b.split(".")[1]));
}

describe("the rolling log file", () => {
  it("rolls by size, keeps a bounded number of files and links <name>.log to the current one", async () => {
    const { file, errors } = await open("gateway", { maxBytes: 1000, keep: 3 });
    await writeLines(file, 80);
    await vi.waitFor(async () => expect(await numbered("gateway")).toHaveLength(3));
    const files = await numbered("gateway");
    // 8000 bytes in 1000-byte files: the log rolled about eight times, and only the newest three are left.
    expect(Number(files[0]?.split(".")[1])).toBeGreaterThan(4);
    expect(path.join(dir, files[2] ?? "")).toBe(file.currentFile());
    expect((await lstat(path.join(dir, "gateway.log"))).isSymbolicLink()).toBe(true);
    expect(await readlink(path.join(dir, "gateway.log"))).toBe(files[2]);
    for (const name of files.slice(0, 2)) expect((await lstat(path.join(dir, name))).size).toBeGreaterThanOrEqual(1000);
    expect(errors).toEqual([]);
  });

  it("appends to the latest file after a restart", async () => {
    const first = await open("worker");
    await writeLines(first.file, 3, "before");
    first.file.close();
    const second = await open("worker");
    await writeLines(second.file, 1, "after");
    expect(second.file.currentFile()).toBe(first.file.currentFile());
    expect(await readFile(path.join(dir, "worker.log"), "utf8")).toBe("before 0\nbefore 1\nbefore 2\nafter 0\n");
  });

  it("keeps the plain <name>.log of earlier versions as the oldest numbered file, pruned first", async () => {
    await writeFile(path.join(dir, "chat.log"), '{"msg":"from an earlier version"}\n');
    const { file } = await open("chat", { maxBytes: 1000, keep: 2 });
    expect(await readFile(path.join(dir, "chat.0.log"), "utf8")).toContain("from an earlier version");
    await writeLines(file, 1, "now");
    expect(await readFile(path.join(dir, "chat.log"), "utf8")).toBe("now 0\n");
    await writeLines(file, 30);
    await vi.waitFor(async () => expect(await numbered("chat")).toHaveLength(2));
    expect(await numbered("chat")).not.toContain("chat.0.log");
  });

  it("leaves the files of other processes sharing the folder alone", async () => {
    const worker = await open("worker");
    await writeLines(worker.file, 2, "worker");
    const gateway = await open("gateway", { maxBytes: 1000, keep: 2 });
    await writeLines(gateway.file, 40);
    await vi.waitFor(async () => expect(await numbered("gateway")).toHaveLength(2));
    expect(await readFile(path.join(dir, "worker.log"), "utf8")).toBe("worker 0\nworker 1\n");
    expect(await readlink(path.join(dir, "gateway.log"))).toMatch(/^gateway\.\d+\.log$/);
  });
});

describe("the gateway logger over a rolling file", () => {
  it("keeps writing whole JSON lines across rolls", async () => {
    const log = await createGatewayLogger({ level: "info", logsDir: dir, name: "gateway", secrets: [], rotation: { maxBytes: 2000, keep: 2 } });
    for (let i = 0; i < 60; i++) {
      log.info("filler", { i, pad: "y".repeat(80) });
      await nextTurn();
    }
    await vi.waitFor(async () => expect(await numbered("gateway")).toHaveLength(2));
    const texts = await Promise.all((await numbered("gateway")).map((name) => readFile(path.join(dir, name), "utf8")));
    const lines = texts.join("").split("\n").filter((line) => line !== "");
    const parsed = lines.map((line) => JSON.parse(line) as { msg: string; i: number });
    expect(parsed.map((line) => line.i)).toEqual([...parsed.keys()].map((index) => 60 - parsed.length + index));
    expect(parsed.at(-1)).toMatchObject({ msg: "filler", i: 59 });
  });
});
