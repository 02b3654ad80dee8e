import { mkdir, mkdtemp, readdir, rm, writeFile, access } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "./support/run-cli.js";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "hermes-memcli-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const state = (): string => path.join(root, "state");
const env = (): Record<string, string> => ({ HOME: root, HERMES_HOME: state() });
const userDir = (platform: string, id: string): string => path.join(state(), "memory", "users", platform, id);

async function saved(platform: string, id: string, files: Record<string, string>): Promise<void> {
  await mkdir(userDir(platform, id), { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(userDir(platform, id), name), text);
}

describe("hermes memory", () => {
  it("--help is printed without reading configuration or creating anything", async () => {
    for (const args of [["memory", "--help"], ["memory", "show", "--help"], ["memory", "forget", "-h"]]) {
      const run = await runCli(args, { env: { HOME: root, HERMES_HOME: state(), HERMES_HTTP_PORT: "eighty" }, cwd: root });
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
      expect(run.stdout).toContain(`hermes ${args.slice(0, 2).filter((word) => !word.startsWith("-")).join(" ")}`);
    }
    expect(await readdir(root)).toEqual([]);
  });

  it("show prints one person's entries (text and --json) and nobody else's", async () => {
    await saved("telegram", "42", { "USER.md": "§ Prefers tea\n", "MEMORY.md": "§ Works on the Nightingale project\n" });
    await saved("telegram", "43", { "USER.md": "§ Bob's private fact\n" });
    const text = await runCli(["memory", "show", "telegram:42"], { env: env() });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("§ Prefers tea");
    expect(text.stdout).toContain("§ Works on the Nightingale project");
    expect(text.stdout).not.toContain("Bob");

    const json = await runCli(["memory", "show", "telegram:42", "--json"], { env: env() });
    expect(JSON.parse(json.stdout)).toMatchObject({ user: "telegram:42", scope: "user:telegram:42", memory: ["Works on the Nightingale project"], userProfile: ["Prefers tea"] });

    const nobody = await runCli(["memory", "show", "slack:U1"], { env: env() });
    expect(nobody.stdout).toContain("Nothing saved for slack:U1.");
  });

  it("forget erases only that person's files; a malformed person is a usage error", async () => {
    await saved("telegram", "42", { "USER.md": "§ Prefers tea\n" });
    await saved("telegram", "43", { "USER.md": "§ Bob's fact\n" });
    const run = await runCli(["memory", "forget", "telegram:42"], { env: env() });
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 0, stdout: "Erased the memory of telegram:42.\n" });
    await expect(access(path.join(userDir("telegram", "42"), "USER.md"))).rejects.toThrow();
    await access(path.join(userDir("telegram", "43"), "USER.md"));

    const again = await runCli(["memory", "forget", "telegram:42"], { env: env() });
    expect(again.stdout).toContain("nothing to erase");
    const bad = await runCli(["memory", "show", "telegram"], { env: env() });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("<platform:userId>");
  });

  it("a hostile id cannot reach outside the person's folder", async () => {
    await mkdir(path.join(state(), "memory"), { recursive: true });
    await writeFile(path.join(state(), "memory", "USER.md"), "§ global file\n");
    const run = await runCli(["memory", "forget", "telegram:../.."], { env: env() });
    expect(run.code).toBe(0);
    await access(path.join(state(), "memory", "USER.md"));
  });
});
