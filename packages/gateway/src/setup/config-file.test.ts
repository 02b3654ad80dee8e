import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseConfigYaml } from "../config/config-yaml.js";
import { configYamlPath, saveConfigYaml } from "./config-file.js";
import { configUpdatesFor } from "./setup-answers.js";

let root = "";
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "hermes-config-file-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("saveConfigYaml", () => {
  it("creates the folder and a private file the gateway's reader accepts, values kept exactly", async () => {
    const file = path.join(root, "home", "config.yaml");
    const updates = new Map([["TELEGRAM_BOT_TOKEN", "123456:ABC-def"], ["DISCORD_BOT_TOKEN", "0123"], ["HERMES_MODEL", "true"]]);
    expect(await saveConfigYaml(file, updates)).toEqual({ ok: true });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const read = parseConfigYaml(await readFile(file, "utf8"), file);
    expect(read.issues).toEqual([]);
    expect(Object.fromEntries([...read.values].map(([name, value]) => [name, value.text]))).toEqual(Object.fromEntries(updates));
  });

  it("merges into an existing file, removes keys set to null and tightens its mode", async () => {
    const file = path.join(root, "config.yaml");
    await writeFile(file, "# keep me\nHERMES_BOT_NAME: Ada  # inline\nHERMES_BASE_URL: http://x/v1\n");
    await chmod(file, 0o644);
    expect(await saveConfigYaml(file, new Map([["HERMES_BASE_URL", null], ["HERMES_MODEL", "openai/gpt-4o"]]))).toEqual({ ok: true });
    expect(await readFile(file, "utf8")).toBe("# keep me\nHERMES_BOT_NAME: Ada # inline\nHERMES_MODEL: openai/gpt-4o\n");
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it("leaves a file that is not valid YAML untouched", async () => {
    const file = path.join(root, "config.yaml");
    await writeFile(file, "HERMES_MODEL: [unclosed\n");
    const saved = await saveConfigYaml(file, new Map([["HERMES_MODEL", "x/y"]]));
    expect(saved).toMatchObject({ ok: false, error: expect.stringContaining("is not valid YAML") });
    expect(await readFile(file, "utf8")).toBe("HERMES_MODEL: [unclosed\n");
  });
});

describe("configYamlPath", () => {
  it("follows HERMES_HOME from the environment, then .env, then the default", async () => {
    expect(await configYamlPath({ env: { HERMES_HOME: "state" }, cwd: root })).toBe(path.join(root, "state", "config.yaml"));
    await mkdir(path.join(root, "app"));
    await writeFile(path.join(root, "app", ".env"), "HERMES_HOME=./from-dotenv\n");
    expect(await configYamlPath({ env: {}, cwd: path.join(root, "app") })).toBe(path.join(root, "app", "from-dotenv", "config.yaml"));
    expect(await configYamlPath({ env: {}, cwd: root, homeDir: "/home/ada" })).toBe("/home/ada/.hermes-gateway/config.yaml");
  });
});

describe("configUpdatesFor", () => {
  it("saves a hosted model's key under the provider's variable and drops a custom endpoint's leftovers", () => {
    expect(Object.fromEntries(configUpdatesFor({ model: { model: "anthropic/claude-sonnet-4-5", apiKey: "k" } }))).toEqual({
      HERMES_MODEL: "anthropic/claude-sonnet-4-5",
      HERMES_BASE_URL: null,
      HERMES_API: null,
      ANTHROPIC_API_KEY: "k",
      HERMES_API_KEY: null,
    });
    expect(Object.fromEntries(configUpdatesFor({ model: { model: "llama3.1", baseUrl: "http://127.0.0.1:11434/v1" }, slack: { botToken: "xoxb-1", appToken: "xapp-1" } }))).toEqual({
      HERMES_MODEL: "llama3.1",
      HERMES_BASE_URL: "http://127.0.0.1:11434/v1",
      HERMES_API: null,
      SLACK_BOT_TOKEN: "xoxb-1",
      SLACK_APP_TOKEN: "xapp-1",
    });
    expect(configUpdatesFor({ model: { model: "claude-x", baseUrl: "http://127.0.0.1:8080", api: "anthropic-messages" } }).get("HERMES_API")).toBe("anthropic-messages");
  });
});
