import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "@hermes/agent";
import { openStore, type Store } from "@hermes/store";
import { loadConfig } from "../config/load-config.js";
import { createAgentPool, type AgentPool } from "./create-agent.js";
import { ALL_TOOL_NAMES, DEFAULT_TOOL_NAMES } from "./tool-names.js";

const STDIO_SERVER = fileURLToPath(new URL("../../../../test/fakes/mcp/stdio-server.mjs", import.meta.url));

let home: string;
let store: Store;
let pool: AgentPool | undefined;
beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), "hermes-mcp-pool-"));
  store = await openStore({ file: path.join(home, "state.db") });
});
afterEach(async () => {
  await pool?.shutdown();
  pool = undefined;
  await store.close();
  await rm(home, { recursive: true, force: true });
});

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what}: not in time`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("the agent pool's MCP servers", () => {
  it("offers the servers' tools to every agent, and stops offering them to an agent dropped from the pool", async () => {
    await writeFile(path.join(home, "config.yaml"), `mcp_servers:\n  fake: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(STDIO_SERVER)}] }\n`);
    const env = { HERMES_HOME: home, HERMES_REFLECTION: "off", HERMES_BASE_URL: "http://127.0.0.1:9/v1", HERMES_MODEL: "local-model" };
    const loaded = await loadConfig({ env, cwd: home, homeDir: home, knownTools: ALL_TOOL_NAMES, defaultTools: DEFAULT_TOOL_NAMES });
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
    const built = await createAgentPool(loaded.config, { logger: silentLogger, store });
    if (!built.ok) throw new Error(built.issue.message);
    pool = built.pool;
    // The pool is there before the server answered: connecting never holds up start-up.
    const first = await pool.agentFor(undefined);
    await until(() => pool?.mcp.status()[0]?.state === "connected", "the server connected");
    expect(first.tools.has("mcp_fake_echo")).toBe(true);
    const override = await pool.agentFor("another-local-model");
    expect(override.tools.has("mcp_fake_echo")).toBe(true);

    // Sixteen more /model names push the first agent out of the pool's bounded cache.
    for (let index = 0; index < 16; index += 1) await pool.agentFor(`model-${index}`);
    await until(() => !first.tools.has("mcp_fake_echo"), "the dropped agent detached");
    expect((await pool.agentFor("model-15")).tools.has("mcp_fake_echo")).toBe(true);
    expect(first.tools.has("think")).toBe(true);
  });

  it("has no servers, and nothing in /readyz, without mcp_servers", async () => {
    const env = { HERMES_HOME: home, HERMES_REFLECTION: "off", HERMES_BASE_URL: "http://127.0.0.1:9/v1", HERMES_MODEL: "local-model" };
    const loaded = await loadConfig({ env, cwd: home, homeDir: home, knownTools: ALL_TOOL_NAMES, defaultTools: DEFAULT_TOOL_NAMES });
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
    const built = await createAgentPool(loaded.config, { logger: silentLogger, store });
    if (!built.ok) throw new Error(built.issue.message);
    pool = built.pool;
    expect(pool.mcp.status()).toEqual([]);
    expect((await pool.agentFor(undefined)).tools.names().some((name) => name.startsWith("mcp_"))).toBe(false);
  });
});
