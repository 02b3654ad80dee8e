import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig, type ConfigResult } from "./load-config.js";

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "hermes-retention-config-"));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

function load(env: Record<string, string>): Promise<ConfigResult> {
  return loadConfig({ env: { HERMES_HOME: dir, ...env }, cwd: dir, homeDir: dir, knownTools: ["think"], defaultTools: ["think"] });
}

describe("retention settings", () => {
  it("keeps finished records 30 days and conversation history forever by default", async () => {
    const result = await load({});
    expect(result.ok && result.config.retention).toEqual({ days: 30 });
  });

  it("treats an empty value as unset", async () => {
    const result = await load({ HERMES_RETENTION_DAYS: "", HERMES_HISTORY_RETENTION_DAYS: "" });
    expect(result.ok && result.config.retention).toEqual({ days: 30 });
  });

  it("reads both windows in whole days", async () => {
    const result = await load({ HERMES_RETENTION_DAYS: "7", HERMES_HISTORY_RETENTION_DAYS: "365" });
    expect(result.ok && result.config.retention).toEqual({ days: 7, historyDays: 365 });
  });

  it("reads them from config.yaml too", async () => {
    await fs.writeFile(path.join(dir, "config.yaml"), "HERMES_RETENTION_DAYS: 14\nHERMES_HISTORY_RETENTION_DAYS: 90\n");
    const result = await load({});
    expect(result.ok && result.config.retention).toEqual({ days: 14, historyDays: 90 });
  });

  it.each(["0", "-3", "1.5", "thirty", "99999"])("rejects %j, naming the variable", async (value) => {
    const result = await load({ HERMES_RETENTION_DAYS: value, HERMES_HISTORY_RETENTION_DAYS: value });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const settings = result.errors.map((issue) => issue.setting);
    expect(settings).toContain("HERMES_RETENTION_DAYS");
    expect(settings).toContain("HERMES_HISTORY_RETENTION_DAYS");
    for (const issue of result.errors) expect(issue.message).toMatch(/^must be an integer from 1 to 36500/);
  });
});
