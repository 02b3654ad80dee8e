import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeFileAtomically } from "./atomic-write.js";

let folder: string;

beforeEach(async () => {
  folder = await fs.mkdtemp(path.join(os.tmpdir(), "hermes-"));
});

afterEach(async () => {
  await fs.rm(folder, { recursive: true, force: true });
});

describe("writeFileAtomically", () => {
  it("creates a new file and leaves no temp file behind", async () => {
    const target = path.join(folder, "new.txt");
    await writeFileAtomically(target, "content");
    expect(await fs.readFile(target, "utf8")).toBe("content");
    expect(await fs.readdir(folder)).toEqual(["new.txt"]);
  });

  it("replaces an existing file and keeps its permission bits", async () => {
    const target = path.join(folder, "script.sh");
    await fs.writeFile(target, "old");
    await fs.chmod(target, 0o700);
    await writeFileAtomically(target, new TextEncoder().encode("new"));
    expect(await fs.readFile(target, "utf8")).toBe("new");
    expect((await fs.stat(target)).mode & 0o777).toBe(0o700);
  });

  it("removes the temp file and rethrows when the rename fails", async () => {
    const target = path.join(folder, "occupied");
    await fs.mkdir(target);
    await fs.writeFile(path.join(target, "inside.txt"), "keep");
    await expect(writeFileAtomically(target, "x", { tempSuffix: () => "t1" })).rejects.toMatchObject({
      code: expect.any(String),
    });
    expect(await fs.readdir(folder)).toEqual(["occupied"]);
  });

  it("fails without touching anything when the temp name is taken", async () => {
    const target = path.join(folder, "file.txt");
    await fs.writeFile(path.join(folder, ".file.txt.same.tmp"), "someone else's");
    await expect(writeFileAtomically(target, "x", { tempSuffix: () => "same" })).rejects.toMatchObject({
      code: "EEXIST",
    });
    expect(await fs.readFile(path.join(folder, ".file.txt.same.tmp"), "utf8")).toBe("someone else's");
  });
});
