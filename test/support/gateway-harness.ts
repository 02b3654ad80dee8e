import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createMetricsRegistry, silentLogger } from "@hermes/agent";
import { ALL_TOOL_NAMES, DEFAULT_TOOL_NAMES, formatConfigIssues, loadConfig, startGatewayProcess, type GatewayProcess } from "@hermes/gateway";
import { startLlmServer, type LlmServer } from "../fakes/llm-server.js";
import { RecordingAdapter } from "./recording-adapter.js";

export interface GatewayHarness {
  llm: LlmServer;
  home: string;
  adapter: RecordingAdapter;
  gateway: GatewayProcess;
  /** Stops the gateway and starts a new one on the same state folder (a restart). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** A gateway process in this test process: real store, hooks, inline queue and delivery, a scripted LLM, one platform. */
export async function startGatewayHarness(env: Record<string, string> = {}, home?: string): Promise<GatewayHarness> {
  const llm = await startLlmServer();
  const stateHome = home ?? (await mkdtemp(path.join(os.tmpdir(), "hermes-gw-")));
  const start = async (): Promise<{ adapter: RecordingAdapter; gateway: GatewayProcess }> => {
    const loaded = await loadConfig({
      env: { HERMES_HOME: stateHome, HERMES_BASE_URL: llm.baseUrl, HERMES_MODEL: "scripted-model", HERMES_API_KEY: "test-key", ...env },
      cwd: stateHome,
      homeDir: stateHome,
      knownTools: ALL_TOOL_NAMES,
      defaultTools: DEFAULT_TOOL_NAMES,
    });
    if (!loaded.ok) throw new Error(formatConfigIssues(loaded.errors));
    const adapter = new RecordingAdapter();
    const started = await startGatewayProcess({ config: loaded.config, logger: silentLogger, adapters: [adapter], http: false, metrics: createMetricsRegistry() });
    if (!started.ok) throw new Error(started.issue.message);
    return { adapter, gateway: started.process };
  };
  let current = await start();
  const harness: GatewayHarness = {
    llm,
    home: stateHome,
    get adapter() {
      return current.adapter;
    },
    get gateway() {
      return current.gateway;
    },
    restart: async () => {
      await current.gateway.stop();
      current = await start();
    },
    close: async () => {
      await current.gateway.stop({ drainMs: 0 });
      await llm.close();
      if (!home) await rm(stateHome, { recursive: true, force: true });
    },
  };
  return harness;
}
