import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { REPO_ROOT, runCli } from "./support/run-cli.js";

// Every command and subcommand of `hermes`; a new one belongs here too.
const COMMAND_LINES: string[][] = [
  [],
  ["chat"],
  ["setup"],
  ["status"],
  ["doctor"],
  ["pairing"],
  ["pairing", "approve"],
  ["pairing", "list"],
  ["pairing", "revoke"],
  ["hooks"],
  ["hooks", "list"],
  ["hooks", "enable"],
  ["hooks", "disable"],
  ["hooks", "install"],
  ["hooks", "test"],
  ["sessions"],
  ["sessions", "list"],
  ["sessions", "show"],
  ["db"],
  ["db", "migrate"],
  ["db", "copy"],
];

let root = "";
let home = "";
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "hermes-help-"));
  home = path.join(root, "state");
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Configuration that would fail validation, and a HERMES_HOME that must never come into existence. */
const brokenEnv = (): Record<string, string> => ({ HOME: root, HERMES_HOME: home, HERMES_HTTP_PORT: "eighty", HERMES_MODEL: "nope/nope", REDIS_URL: "http://wrong" });

async function expectNothingCreated(): Promise<void> {
  await expect(readdir(home)).rejects.toThrow(/ENOENT/);
  expect(await readdir(root)).toEqual([]);
}

describe("hermes --help", () => {
  it("prints every command's and subcommand's usage to stdout with exit 0 and creates nothing, even with invalid configuration", async () => {
    for (const words of COMMAND_LINES) {
      for (const args of [[...words, "--help"], [...words, "-h"], ["help", ...words]]) {
        const run = await runCli(args, { env: brokenEnv(), cwd: root });
        expect({ args, code: run.code, stderr: run.stderr }).toEqual({ args, code: 0, stderr: "" });
        expect(run.stdout, args.join(" ")).toMatch(/^Usage: hermes /);
        if (words.length > 0) expect(run.stdout, args.join(" ")).toContain(`hermes ${words.join(" ")}`);
      }
    }
    await expectNothingCreated();
  });

  it("wins over other problems on the command line", async () => {
    const run = await runCli(["hooks", "install", "--bogus", "--help"], { env: brokenEnv(), cwd: root });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Usage: hermes hooks install <folder> [--force]");
    await expectNothingCreated();
  });

  it("shows each command's options", async () => {
    const sessions = await runCli(["sessions", "list", "--help"], { env: brokenEnv(), cwd: root });
    expect(sessions.stdout).toMatch(/--limit N\s+at most N conversations/);
    const setup = await runCli(["setup", "--help"], { env: brokenEnv(), cwd: root });
    for (const option of ["--model", "--base-url", "--api-key", "--telegram-token", "--discord-token", "--slack-bot-token", "--slack-app-token", "--slack-signing-secret", "--redis-url", "--yes", "--skip-checks"]) {
      expect(setup.stdout).toContain(option);
    }
  });
});

describe("hermes --version", () => {
  it("prints hermes-gateway and the version", async () => {
    const manifest = JSON.parse(await readFile(path.join(REPO_ROOT, "package.json"), "utf8")) as { version: string };
    for (const flag of ["--version", "-V"]) {
      const run = await runCli([flag], { env: brokenEnv(), cwd: root });
      expect(run).toMatchObject({ code: 0, stdout: `hermes-gateway ${manifest.version}\n`, stderr: "" });
    }
    await expectNothingCreated();
  });
});

describe("usage errors", () => {
  it("exit 2 with a message and the usage on stderr, before anything is read or created", async () => {
    const cases: Array<[string[], string]> = [
      [["frobnicate"], 'Unknown command "frobnicate".'],
      [["doctor", "--bogus"], "Unknown option --bogus."],
      [["doctor", "extra"], 'Unexpected argument "extra".'],
      [["status", "--json=yes"], "--json takes no value."],
      [["sessions", "list", "--limit"], "--limit needs a value."],
      [["sessions"], "Missing sessions command."],
      [["hooks", "nope"], 'Unknown hooks command "nope".'],
      [["pairing", "approve", "telegram"], "Missing argument: hermes pairing approve <platform> <code>"],
      [["setup", "--model"], "--model needs a value."],
      [["help", "nope"], 'Unknown command "nope".'],
    ];
    for (const [args, message] of cases) {
      const run = await runCli(args, { env: brokenEnv(), cwd: root });
      expect({ args, code: run.code, stdout: run.stdout }).toEqual({ args, code: 2, stdout: "" });
      expect(run.stderr, args.join(" ")).toContain(message);
      expect(run.stderr, args.join(" ")).toContain("Usage: hermes");
    }
    await expectNothingCreated();
  });

  it("configuration errors exit 2 naming the setting", async () => {
    const run = await runCli(["sessions", "list"], { env: { HOME: root, HERMES_HOME: home, HERMES_HTTP_PORT: "eighty" }, cwd: root });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("HERMES_HTTP_PORT");
  });
});
