import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getModel } from "@mariozechner/pi-ai";
import { silentLogger } from "@hermes/agent";
import { openStore, type Store } from "@hermes/store";
import { loadConfig } from "../config/load-config.js";
import { createAgentPool, type AgentPool } from "./create-agent.js";
import { ALL_TOOL_NAMES, DEFAULT_TOOL_NAMES } from "./tool-names.js";

let home: string;
let store: Store;
let pool: AgentPool | undefined;
beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), "hermes-modelfor-"));
  store = await openStore({ file: path.join(home, "state.db") });
});
afterEach(async () => {
  await pool?.shutdown();
  pool = undefined;
  await store.close();
  await rm(home, { recursive: true, force: true });
});

async function poolWith(env: Record<string, string>): Promise<AgentPool> {
  const loaded = await loadConfig({ env: { HERMES_HOME: home, HERMES_REFLECTION: "off", ...env }, cwd: home, homeDir: home, knownTools: ALL_TOOL_NAMES, defaultTools: DEFAULT_TOOL_NAMES });
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  const built = await createAgentPool(loaded.config, { logger: silentLogger, store });
  if (!built.ok) throw new Error(built.issue.message);
  pool = built.pool;
  return built.pool;
}

describe("AgentPool.modelFor: the model (and so the context window) a session's compression is sized for", () => {
  it("is the custom endpoint's HERMES_CONTEXT_WINDOW without an override", async () => {
    const agents = await poolWith({ HERMES_BASE_URL: "http://127.0.0.1:9/v1", HERMES_MODEL: "local-model", HERMES_CONTEXT_WINDOW: "6000" });
    expect(agents.modelFor(undefined).model.contextWindow).toBe(6_000);
    expect(agents.modelFor("another-local-model").model).toMatchObject({ id: "another-local-model", contextWindow: 6_000 });
  });

  it("sees images at a custom endpoint only with HERMES_MODEL_INPUT=text,image, for /model overrides too", async () => {
    const agents = await poolWith({ HERMES_BASE_URL: "http://127.0.0.1:9/v1", HERMES_MODEL: "llava", HERMES_MODEL_INPUT: "text,image" });
    expect((await agents.agentFor(undefined)).acceptsImages).toBe(true);
    expect(agents.modelFor("another-local-model").model.input).toEqual(["text", "image"]);
    await agents.shutdown();
    const textOnly = await poolWith({ HERMES_BASE_URL: "http://127.0.0.1:9/v1", HERMES_MODEL: "llama" });
    expect((await textOnly.agentFor(undefined)).acceptsImages).toBe(false);
  });

  it("is the /model override's own window, and the configured model's when the override no longer resolves", async () => {
    const agents = await poolWith({ HERMES_MODEL: "openai/gpt-4o-mini", OPENAI_API_KEY: "sk-test", ANTHROPIC_API_KEY: "sk-ant-test" });
    const primary = getModel("openai", "gpt-4o-mini").contextWindow;
    const override = getModel("anthropic", "claude-sonnet-4-5").contextWindow;
    expect(override).not.toBe(primary);
    expect(agents.modelFor(undefined).model.contextWindow).toBe(primary);
    expect(agents.modelFor("anthropic/claude-sonnet-4-5").model.contextWindow).toBe(override);
    expect(agents.modelFor("anthropic/no-such-model").model.id).toBe("gpt-4o-mini");
  });
});
