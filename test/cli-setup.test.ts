import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parse } from "yaml";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startAnthropicServer } from "./fakes/anthropic-server.js";
import { startLlmServer, type LlmServer } from "./fakes/llm-server.js";
import { startFakeTelegram, type FakeTelegram } from "./fakes/telegram/index.js";
import { runCli } from "./support/run-cli.js";

let llm: LlmServer;
let telegram: FakeTelegram;
let root = "";
let home = "";
let configFile = "";

beforeAll(async () => {
  [llm, telegram] = await Promise.all([startLlmServer({ defaultReply: { kind: "text", text: "OK" } }), startFakeTelegram()]);
});
afterAll(async () => {
  await Promise.all([llm?.close(), telegram?.close()]);
});
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "hermes-setup-"));
  home = path.join(root, "state");
  configFile = path.join(home, "config.yaml");
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

// The stand-in's address comes from the environment, as an operator's proxy would; the values come from the options.
const env = (): Record<string, string> => ({ HOME: root, HERMES_HOME: home, TELEGRAM_API_ROOT: telegram.apiRoot });

async function savedConfig(): Promise<Record<string, unknown>> {
  return parse(await readFile(configFile, "utf8")) as Record<string, unknown>;
}

async function modeOf(file: string): Promise<number> {
  return (await stat(file)).mode & 0o777;
}

describe("hermes setup with options", () => {
  it("checks the values online and writes them to config.yaml with mode 0600, which doctor then reads", async () => {
    const run = await runCli(["setup", "--base-url", llm.baseUrl, "--model", "scripted-model", "--api-key", "local-key-123", "--telegram-token", telegram.token], { env: env(), cwd: root });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^ok\s+model\s+scripted-model at /m);
    expect(run.stdout).toMatch(/^ok\s+telegram\s+@hermes_test_bot/m);
    expect(run.stdout).toContain(`to ${configFile}.`);
    expect(run.stdout).not.toContain(telegram.token);
    expect(run.stdout).not.toContain("local-key-123");
    expect(await savedConfig()).toEqual({ HERMES_MODEL: "scripted-model", HERMES_BASE_URL: llm.baseUrl, HERMES_API_KEY: "local-key-123", TELEGRAM_BOT_TOKEN: telegram.token });
    expect(await modeOf(configFile)).toBe(0o600);
    expect(llm.requests.at(-1)?.headers.authorization).toBe("Bearer local-key-123");

    const doctor = await runCli(["doctor", "--json"], { env: env(), cwd: root });
    const report = JSON.parse(doctor.stdout) as { checks: Array<{ name: string; status: string }> };
    expect(report.checks.filter((check) => ["model", "telegram"].includes(check.name)).map((check) => check.status)).toEqual(["ok", "ok"]);
  });

  it("with --api checks the model over that API and saves HERMES_API; a hosted model drops it again", async () => {
    const anthropic = await startAnthropicServer({ models: ["claude-stand-in"] });
    try {
      anthropic.enqueue({ kind: "text", text: "OK" });
      const run = await runCli(["setup", "--base-url", anthropic.baseUrl, "--api", "anthropic-messages", "--model", "claude-stand-in", "--api-key", "sk-ant-setup-123"], { env: env(), cwd: root });
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^ok\s+model\s+claude-stand-in at \S+ answers \(anthropic-messages, /m);
      expect(run.stdout).not.toContain("sk-ant-setup-123");
      expect(await savedConfig()).toEqual({ HERMES_MODEL: "claude-stand-in", HERMES_BASE_URL: anthropic.baseUrl, HERMES_API: "anthropic-messages", HERMES_API_KEY: "sk-ant-setup-123" });
      expect(anthropic.requests.map((request) => [request.apiKey, request.status])).toEqual([["sk-ant-setup-123", 200], ["sk-ant-setup-123", 200]]);
    } finally {
      await anthropic.close();
    }
    const hosted = await runCli(["setup", "--model", "anthropic/claude-sonnet-4-5", "--api-key", "sk-ant-new", "--skip-checks"], { env: env(), cwd: root });
    expect(hosted.code).toBe(0);
    expect(await savedConfig()).toEqual({ HERMES_MODEL: "anthropic/claude-sonnet-4-5", ANTHROPIC_API_KEY: "sk-ant-new" });
  });

  it("keeps the other keys of an existing file and makes it private", async () => {
    await mkdir(home, { recursive: true });
    await writeFile(configFile, "# my settings\nHERMES_BOT_NAME: Ada\nHERMES_BASE_URL: http://127.0.0.1:1/v1\nHERMES_API_KEY: old-key\n");
    await chmod(configFile, 0o644);
    const run = await runCli(["setup", "--model", "anthropic/claude-sonnet-4-5", "--api-key", "sk-ant-new", "--skip-checks"], { env: env(), cwd: root });
    expect(run.code).toBe(0);
    // A hosted model: the custom endpoint's URL and key must not linger and shadow it.
    expect(await savedConfig()).toEqual({ HERMES_BOT_NAME: "Ada", HERMES_MODEL: "anthropic/claude-sonnet-4-5", ANTHROPIC_API_KEY: "sk-ant-new" });
    expect(await readFile(configFile, "utf8")).toContain("# my settings");
    expect(await modeOf(configFile)).toBe(0o600);
  });

  it("says in one line that HERMES_API_KEY in the environment would win over the saved provider key", async () => {
    const run = await runCli(["setup", "--model", "anthropic/claude-sonnet-4-5", "--api-key", "sk-ant-new", "--skip-checks"], { env: { ...env(), HERMES_API_KEY: "sk-env-old" }, cwd: root });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("note: HERMES_API_KEY set in the environment or .env wins over the saved ANTHROPIC_API_KEY; unset it there for the saved key to be used\n");
    expect(await savedConfig()).toEqual({ HERMES_MODEL: "anthropic/claude-sonnet-4-5", ANTHROPIC_API_KEY: "sk-ant-new" });
    expect(run.stdout + run.stderr).not.toContain("sk-env-old");
  });

  it("saves nothing and exits 1 when a check fails, unless --skip-checks", async () => {
    const refused = await runCli(["setup", "--telegram-token", "999:wrong"], { env: env(), cwd: root });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/^FAIL\s+telegram\s+Telegram refused the token \(401 Unauthorized\)/m);
    expect(refused.stderr).toContain("Nothing was saved");
    expect(refused.stdout + refused.stderr).not.toContain("999:wrong");
    await expect(readdir(home)).rejects.toThrow(/ENOENT/);

    const typo = await runCli(["setup", "--base-url", llm.baseUrl, "--model", "scripted-modle"], { env: env(), cwd: root });
    expect(typo.code).toBe(1);
    expect(typo.stdout).toContain('Did you mean "scripted-model"?');

    const skipped = await runCli(["setup", "--telegram-token", "999:wrong", "--skip-checks"], { env: env(), cwd: root });
    expect(skipped.code).toBe(0);
    expect(await savedConfig()).toEqual({ TELEGRAM_BOT_TOKEN: "999:wrong" });
  });

  it("without a terminal and without options, says what to pass and exits 2", async () => {
    const run = await runCli(["setup"], { env: env(), cwd: root, stdin: "" });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("pass the values as options");
    expect(run.stderr).toContain("--telegram-token");
    const nothing = await runCli(["setup", "--yes"], { env: env(), cwd: root });
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain("Nothing to set");
    await expect(readdir(home)).rejects.toThrow(/ENOENT/);
  });

  it("refuses incomplete option sets as usage errors", async () => {
    for (const args of [["--slack-bot-token", "xoxb-1"], ["--slack-app-token", "xapp-1"], ["--api-key", "k"], ["--model", "no-provider"], ["--model", "m", "--base-url", "http://127.0.0.1:1", "--api", "grpc"], ["--model", "anthropic/claude-sonnet-4-5", "--api", "anthropic-messages"], ["--redis-url", "http://x"], ["--slack-bot-token", "xoxb-1", "--slack-app-token", "nope"]]) {
      const run = await runCli(["setup", ...args], { env: env(), cwd: root });
      expect({ args, code: run.code }).toEqual({ args, code: 2 });
    }
    await expect(readdir(home)).rejects.toThrow(/ENOENT/);
  });
});
