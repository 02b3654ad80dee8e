import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig, type ConfigResult } from "./load-config.js";
import { SETTINGS } from "./settings.js";

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "hermes-subagent-config-"));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

function load(env: Record<string, string>): Promise<ConfigResult> {
  return loadConfig({ env: { HERMES_HOME: dir, ...env }, cwd: dir, homeDir: dir, knownTools: ["think"], defaultTools: ["think"] });
}

describe("HERMES_SUBAGENT_MAX_STEPS", () => {
  it("gives each sub-agent 20 steps by default, as the settings list says", async () => {
    const result = await load({});
    expect(result.ok && result.config.subagentMaxSteps).toBe(20);
    expect(SETTINGS.find((setting) => setting.name === "HERMES_SUBAGENT_MAX_STEPS")?.default).toBe("20");
  });

  it("takes a whole number from 1 to 200", async () => {
    for (const value of ["1", "200"]) {
      const result = await load({ HERMES_SUBAGENT_MAX_STEPS: value });
      expect(result.ok && result.config.subagentMaxSteps).toBe(Number(value));
    }
  });

  it("rejects anything else, naming the setting", async () => {
    for (const value of ["0", "201", "ten", "2.5"]) {
      const result = await load({ HERMES_SUBAGENT_MAX_STEPS: value });
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.errors).toEqual([{ setting: "HERMES_SUBAGENT_MAX_STEPS", message: `must be an integer from 1 to 200 (got "${value}")` }]);
    }
  });
});
