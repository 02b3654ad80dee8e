import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createMetricsRegistry, silentLogger, type Logger, type MetricsRegistry } from "@hermes/agent";
import {
  ALL_TOOL_NAMES,
  DEFAULT_TOOL_NAMES,
  formatConfigIssues,
  loadConfig,
  startGatewayProcess,
  type GatewayConfig,
  type GatewayProcess,
  type PlatformAdapter,
} from "@hermes/gateway";
import { startLlmServer, type LlmServer } from "../fakes/llm-server.js";
import { RecordingAdapter } from "./recording-adapter.js";

export interface GatewayHarness {
  llm: LlmServer;
  home: string;
  /** The recording adapter (when no other adapters were given). */
  adapter: RecordingAdapter;
  gateway: GatewayProcess;
  /** Stops the gateway and starts a new one on the same state folder (a restart). */
  restart(options?: { drainMs?: number }): Promise<void>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** Builds the platform adapters for each start (a restart builds new ones); default: one RecordingAdapter. */
  adapters?: (config: GatewayConfig) => PlatformAdapter[];
  /** Serve the HTTP server (webhooks, /healthz); set HERMES_HTTP_PORT=0 in env for a free port. */
  http?: boolean;
  /** Where the gateway logs (default: nowhere), for tests that check what the operator is told. */
  logger?: Logger;
  /** Where the gateway's metrics go (default: a fresh registry per start), for tests that read /metrics' series. */
  metrics?: MetricsRegistry;
}

/**
 * A gateway process inside the test process: real store, hooks, inline queue and delivery, a scripted LLM, and either
 * a recording adapter or the adapters given (e.g. the real grammY adapter against the fake Bot API).
 */
export async function startGatewayHarness(env: Record<string, string> = {}, home?: string, options: HarnessOptions = {}): Promise<GatewayHarness> {
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
    const adapters = options.adapters ? options.adapters(loaded.config) : [adapter];
    const started = await startGatewayProcess({ config: loaded.config, logger: options.logger ?? silentLogger, adapters, http: options.http ?? false, metrics: options.metrics ?? createMetricsRegistry() });
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
    restart: async (restartOptions) => {
      await current.gateway.stop(restartOptions);
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
