import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { countLines, formatBytes, looksBinary, numberLine, readTextFile, splitLines } from "./text-file.js";

let folder: string;

beforeEach(async () => {
  folder = await fs.mkdtemp(path.join(os.tmpdir(), "hermes-"));
});

afterEach(async () => {
  await fs.rm(folder, { recursive: true, force: true });
});

describe("readTextFile", () => {
  it("reads UTF-8 text", async () => {
    await fs.writeFile(path.join(folder, "a.txt"), "héllo");
    expect(await readTextFile(path.join(folder, "a.txt"), "a.txt", 100)).toEqual({ ok: true, text: "héllo", bytes: 6 });
  });

  it("refuses missing files, folders, oversized and binary files", async () => {
    await fs.writeFile(path.join(folder, "big.txt"), "0123456789");
    await fs.writeFile(path.join(folder, "bin"), Buffer.from([1, 0, 2]));
    const missing = await readTextFile(path.join(folder, "none"), "none", 100);
    expect(missing).toEqual({ ok: false, error: "File not found: none", code: "ENOENT" });
    const dir = await readTextFile(folder, "dir", 100);
    expect(dir.ok ? "" : dir.error).toContain("is a folder");
    const big = await readTextFile(path.join(folder, "big.txt"), "big.txt", 5);
    expect(big.ok ? "" : big.error).toBe("big.txt is too large (10 B; the limit is 5 B).");
    const binary = await readTextFile(path.join(folder, "bin"), "bin", 100);
    expect(binary.ok ? "" : binary.error).toContain("binary");
  });
});

describe("text helpers", () => {
  it("detects NUL bytes only in the first 8 KB", () => {
    expect(looksBinary(Buffer.from("plain text"))).toBe(false);
    expect(looksBinary(Buffer.from([65, 0]))).toBe(true);
    expect(looksBinary(Buffer.concat([Buffer.alloc(8192, 65), Buffer.from([0])]))).toBe(false);
  });

  it("splits LF and CRLF lines without a phantom last line", () => {
    expect(splitLines("")).toEqual([]);
    expect(splitLines("a\r\nb\n")).toEqual(["a", "b"]);
    expect(splitLines("a\n\n")).toEqual(["a", ""]);
    expect(countLines("one")).toBe(1);
  });

  it("formats numbered lines and byte sizes", () => {
    expect(numberLine(7, "text")).toBe("     7| text");
    expect(formatBytes(512)).toBe("512 B");
    expect(formatBytes(1536)).toBe("1.5 KB");
    expect(formatBytes(3 * 1024 * 1024)).toBe("3.0 MB");
  });
});
