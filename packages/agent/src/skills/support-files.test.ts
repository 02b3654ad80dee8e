import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTempDir, writeSkill } from "./skill-fixtures.js";
import { listSupportFiles, readSupportFile, resolveSupportPath } from "./support-files.js";

let base: string;
let skillDir: string;

beforeEach(async () => {
  base = await makeTempDir();
  skillDir = await writeSkill(path.join(base, "skills"), "demo", {
    files: {
      "references/guide.md": "# Guide\n",
      "references/deep/nested.txt": "nested\n",
      "templates/t.md": "template\n",
      "notes/private.md": "not a support folder\n",
    },
  });
  await fs.writeFile(path.join(base, "secret.txt"), "top secret\n");
});

afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

async function read(requested: string, maxBytes = 1024) {
  const resolved = await resolveSupportPath(skillDir, requested);
  if (!resolved.ok) return resolved;
  return readSupportFile(resolved, maxBytes);
}

describe("support files", () => {
  it("reads files in the allowed folders", async () => {
    expect(await read("references/guide.md")).toEqual({ ok: true, text: "# Guide\n", bytes: 8 });
    expect(await read("./references//deep/nested.txt")).toMatchObject({ ok: true, text: "nested\n" });
  });

  it("refuses traversal, absolute paths and other folders", async () => {
    for (const requested of ["../secret.txt", "references/../../secret.txt", "references/../SKILL.md"]) {
      expect(await read(requested)).toMatchObject({ ok: false, error: expect.stringMatching(/"\.\."/) });
    }
    expect(await read(path.join(base, "secret.txt"))).toMatchObject({ ok: false, error: expect.stringMatching(/absolute/) });
    expect(await read("~/secret.txt")).toMatchObject({ ok: false, error: expect.stringMatching(/absolute/) });
    expect(await read("SKILL.md")).toMatchObject({ ok: false, error: expect.stringMatching(/not inside one of/) });
    expect(await read("notes/private.md")).toMatchObject({ ok: false, error: expect.stringMatching(/not inside one of/) });
    expect(await read("references")).toMatchObject({ ok: false, error: expect.stringMatching(/not inside one of/) });
    expect(await read("references\\..\\x")).toMatchObject({ ok: false, error: expect.stringMatching(/backslash/) });
    expect(await read("")).toMatchObject({ ok: false, error: expect.stringMatching(/empty/) });
  });

  it("refuses symbolic links that lead outside the skill folder, file or folder", async () => {
    await fs.symlink(path.join(base, "secret.txt"), path.join(skillDir, "references", "link.txt"));
    await fs.symlink(base, path.join(skillDir, "assets"));
    expect(await read("references/link.txt")).toMatchObject({ ok: false, error: expect.stringMatching(/symbolic link/) });
    expect(await read("assets/secret.txt")).toMatchObject({ ok: false, error: expect.stringMatching(/symbolic link/) });
  });

  it("allows a symbolic link that stays inside the skill folder", async () => {
    await fs.symlink(path.join(skillDir, "references", "guide.md"), path.join(skillDir, "templates", "guide-link.md"));
    expect(await read("templates/guide-link.md")).toMatchObject({ ok: true, text: "# Guide\n" });
  });

  it("refuses oversized, binary, missing files and folders", async () => {
    await fs.mkdir(path.join(skillDir, "assets"));
    await fs.writeFile(path.join(skillDir, "assets", "big.txt"), "x".repeat(2048));
    await fs.writeFile(path.join(skillDir, "assets", "logo.png"), new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 1]));
    expect(await read("assets/big.txt")).toMatchObject({ ok: false, error: expect.stringMatching(/too large/) });
    expect(await read("assets/logo.png")).toMatchObject({ ok: false, error: expect.stringMatching(/binary/) });
    expect(await read("assets/none.md")).toMatchObject({ ok: false, error: "File not found: assets/none.md." });
    expect(await read("references/deep")).toMatchObject({ ok: false, error: expect.stringMatching(/is a folder/) });
  });

  it("resolves a path that does not exist yet, for writing", async () => {
    expect(await resolveSupportPath(skillDir, "scripts/new/run.sh")).toEqual({
      ok: true,
      absolute: path.join(skillDir, "scripts", "new", "run.sh"),
      relative: "scripts/new/run.sh",
    });
  });

  it("lists the regular files of the support folders only", async () => {
    await fs.symlink(path.join(base, "secret.txt"), path.join(skillDir, "references", "zz-link.txt"));
    expect(await listSupportFiles(skillDir)).toEqual([
      { path: "references/deep/nested.txt", bytes: 7 },
      { path: "references/guide.md", bytes: 8 },
      { path: "templates/t.md", bytes: 9 },
    ]);
  });
});
