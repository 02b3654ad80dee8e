import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig, type ConfigResult } from "./load-config.js";
import { configSecrets } from "./secrets.js";
import { SETTINGS } from "./settings.js";

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "hermes-voice-config-"));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

function load(env: Record<string, string>): Promise<ConfigResult> {
  return loadConfig({ env: { HERMES_HOME: dir, ...env }, cwd: dir, homeDir: dir, knownTools: ["think"], defaultTools: ["think"] });
}

describe("speech-to-text settings", () => {
  it("leaves transcription off without HERMES_STT_BASE_URL", async () => {
    const result = await load({});
    expect(result.ok && result.config.speechToText).toBeUndefined();
  });

  it("reads the endpoint without its trailing slash, whisper-1 by default, and the key", async () => {
    const result = await load({ HERMES_STT_BASE_URL: "http://127.0.0.1:9000/v1/", HERMES_STT_API_KEY: "sk-voice" });
    expect(result.ok && result.config.speechToText).toEqual({ baseUrl: "http://127.0.0.1:9000/v1", model: "whisper-1", apiKey: "sk-voice" });
  });

  it("reads the model and takes the settings from config.yaml too", async () => {
    await fs.writeFile(path.join(dir, "config.yaml"), "HERMES_STT_BASE_URL: https://stt.example/v1\nHERMES_STT_MODEL: whisper-large-v3\n");
    const result = await load({});
    expect(result.ok && result.config.speechToText).toEqual({ baseUrl: "https://stt.example/v1", model: "whisper-large-v3" });
  });

  it("rejects an endpoint that is not an http(s) URL, naming the setting", async () => {
    const result = await load({ HERMES_STT_BASE_URL: "ftp://stt.example" });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors).toEqual([{ setting: "HERMES_STT_BASE_URL", message: 'must be an http:// or https:// URL (got "ftp://stt.example")' }]);
  });

  it("rejects a key that cannot travel in a header, without quoting it", async () => {
    const result = await load({ HERMES_STT_BASE_URL: "http://127.0.0.1:9000/v1", HERMES_STT_API_KEY: "two words" });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.errors.map((issue) => issue.setting)).toEqual(["HERMES_STT_API_KEY"]);
      expect(result.errors[0]?.message).not.toContain("two words");
    }
  });

  it("warns that a model or key without an endpoint does nothing", async () => {
    const result = await load({ HERMES_STT_API_KEY: "sk-voice" });
    expect(result.ok && result.config.speechToText).toBeUndefined();
    expect(result.warnings).toEqual([expect.stringContaining("HERMES_STT_BASE_URL is not")]);
  });

  it("masks the key and a password in the endpoint in logs", async () => {
    const result = await load({ HERMES_STT_BASE_URL: "http://user:pw-in-url@127.0.0.1:9000/v1", HERMES_STT_API_KEY: "sk-voice" });
    if (!result.ok) throw new Error("expected the configuration to load");
    expect(configSecrets(result.config)).toEqual(expect.arrayContaining(["sk-voice", "pw-in-url"]));
  });

  it("lists the settings with their defaults, the key as a secret", () => {
    const voice = SETTINGS.filter((setting) => setting.name.startsWith("HERMES_STT_")).map((s) => [s.name, s.default, s.secret]);
    expect(voice).toEqual([
      ["HERMES_STT_BASE_URL", "", false],
      ["HERMES_STT_MODEL", "whisper-1", false],
      ["HERMES_STT_API_KEY", "", true],
    ]);
  });
});
