import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig, type ConfigResult } from "./load-config.js";
import { configSecrets } from "./secrets.js";
import { SETTINGS } from "./settings.js";

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "hermes-api-config-"));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

function load(env: Record<string, string>): Promise<ConfigResult> {
  return loadConfig({ env: { HERMES_HOME: dir, ...env }, cwd: dir, homeDir: dir, knownTools: ["think"], defaultTools: ["think"] });
}

describe("HERMES_API_SERVER_KEY", () => {
  it("leaves the API off when unset", async () => {
    const result = await load({});
    expect(result.ok && result.config.apiServerKey).toBeUndefined();
  });

  it("reads the key, which is a secret masked in logs", async () => {
    const result = await load({ HERMES_API_SERVER_KEY: "sk-hermes-0123456789abcdef" });
    expect(result.ok && result.config.apiServerKey).toBe("sk-hermes-0123456789abcdef");
    if (result.ok) expect(configSecrets(result.config)).toContain("sk-hermes-0123456789abcdef");
    expect(SETTINGS.find((setting) => setting.name === "HERMES_API_SERVER_KEY")?.secret).toBe(true);
  });

  it.each([
    ["with a space inside", "printable ASCII"],
    ["short-key", "at least 16 characters"],
  ])("refuses %j without quoting it", async (key, problem) => {
    const result = await load({ HERMES_API_SERVER_KEY: key });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      const issue = result.errors.find((error) => error.setting === "HERMES_API_SERVER_KEY");
      expect(issue?.message).toContain(problem);
      expect(issue?.message).not.toContain(key);
    }
  });
});
