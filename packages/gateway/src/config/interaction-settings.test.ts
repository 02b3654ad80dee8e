import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig, type ConfigResult } from "./load-config.js";

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "hermes-interaction-config-"));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

function load(env: Record<string, string>): Promise<ConfigResult> {
  return loadConfig({ env: { HERMES_HOME: dir, ...env }, cwd: dir, homeDir: dir, knownTools: ["think", "terminal", "write_file"], defaultTools: ["think"] });
}

describe("streaming and approval settings", () => {
  it("streams nothing and asks before terminal calls by default, for 300 s", async () => {
    const result = await load({});
    expect(result.ok && result.config.interaction).toEqual({ streaming: "off", approval: { tools: ["terminal"], timeoutMs: 300_000 } });
  });

  it("reads HERMES_STREAMING=edit, a tool list, and the timeout", async () => {
    const result = await load({ HERMES_STREAMING: "edit", HERMES_APPROVAL: "terminal, write_file,terminal", HERMES_APPROVAL_TIMEOUT_S: "60" });
    expect(result.ok && result.config.interaction).toEqual({ streaming: "edit", approval: { tools: ["terminal", "write_file"], timeoutMs: 60_000 } });
  });

  it("turns approval off with none, and accepts MCP tool names it cannot know yet", async () => {
    const off = await load({ HERMES_APPROVAL: "none" });
    expect(off.ok && off.config.interaction.approval.tools).toEqual([]);
    const mcp = await load({ HERMES_APPROVAL: "mcp_files_delete" });
    expect(mcp.ok && mcp.config.interaction.approval.tools).toEqual(["mcp_files_delete"]);
  });

  it("names each invalid setting", async () => {
    const result = await load({ HERMES_STREAMING: "live", HERMES_APPROVAL: "terminl", HERMES_APPROVAL_TIMEOUT_S: "0" });
    expect(result.ok).toBe(false);
    const settings = result.ok ? [] : result.errors.map((issue) => issue.setting);
    expect(settings).toEqual(expect.arrayContaining(["HERMES_STREAMING", "HERMES_APPROVAL", "HERMES_APPROVAL_TIMEOUT_S"]));
    const approval = result.ok ? undefined : result.errors.find((issue) => issue.setting === "HERMES_APPROVAL");
    expect(approval?.message).toContain("terminl");
  });
});
