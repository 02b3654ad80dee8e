import os from "node:os";
import { createMetricsRegistry, type Logger, type LogLevel, type MetricsRegistry } from "@hermes/agent";
import { ALL_TOOL_NAMES, DEFAULT_TOOL_NAMES } from "../agent/tool-names.js";
import { formatConfigIssues, type ConfigIssue } from "../config/errors.js";
import type { GatewayConfig } from "../config/gateway-config.js";
import { loadConfig } from "../config/load-config.js";
import { configSecrets } from "../config/secrets.js";
import { createGatewayLogger } from "../logging/create-logger.js";
import { startTracing, type TracingHandle } from "../tracing/start-tracing.js";

const NO_TRACING: TracingHandle = { exporting: false, shutdown: async () => undefined };

export interface Bootstrapped {
  config: GatewayConfig;
  logger: Logger;
  metrics: MetricsRegistry;
  /** OTLP trace export when OTEL_EXPORTER_OTLP_ENDPOINT is set; call shutdown() last, to flush buffered spans. */
  tracing: TracingHandle;
}

/**
 * Shared start of every process (gateway, worker, chat): configuration from env/.env/config.yaml, the operator log
 * with secrets masked, and a metrics registry. Invalid configuration prints precise messages and yields exit code 2.
 */
export async function bootstrap(options: {
  env: Record<string, string | undefined>;
  cwd: string;
  stderr: NodeJS.WritableStream;
  logName: string;
  stderrLevel?: LogLevel;
  /** Export traces when OTEL_* asks for it (default); short operator commands have nothing to trace. */
  traces?: boolean;
}): Promise<{ ok: true; value: Bootstrapped } | { ok: false; exitCode: number }> {
  const loaded = await loadConfig({ env: options.env, cwd: options.cwd, homeDir: os.homedir(), knownTools: ALL_TOOL_NAMES, defaultTools: DEFAULT_TOOL_NAMES });
  for (const warning of loaded.warnings) options.stderr.write(`warning: ${warning}\n`);
  if (!loaded.ok) {
    options.stderr.write(`${formatConfigIssues(loaded.errors)}\n`);
    return { ok: false, exitCode: 2 };
  }
  const config = loaded.config;
  const logger = await createGatewayLogger({
    level: config.logLevel,
    logsDir: config.paths.logs,
    name: options.logName,
    stderrLevel: options.stderrLevel,
    stderr: options.stderr,
    secrets: configSecrets(config),
  });
  const tracing = options.traces === false ? NO_TRACING : await startTracing({ env: options.env, serviceName: `hermes-${options.logName}`, logger });
  return { ok: true, value: { config, logger, metrics: createMetricsRegistry({ processMetrics: true }), tracing } };
}

/** Prints a start-up problem found after configuration loaded (no model, store unusable, …) and returns exit code 2. */
export function reportIssue(stderr: NodeJS.WritableStream, issue: ConfigIssue): number {
  stderr.write(issue.message.startsWith("No model") ? `${issue.message}\n` : `${formatConfigIssues([issue])}\n`);
  return 2;
}

/**
 * Runs `stop` once on SIGINT/SIGTERM. npm forwards the signal to its child, so the same signal may arrive twice; the
 * second is ignored while the first shutdown is in progress.
 */
export function onShutdownSignal(stop: (signal: NodeJS.Signals) => void): () => void {
  let fired = false;
  const handler = (signal: NodeJS.Signals): void => {
    if (fired) return;
    fired = true;
    stop(signal);
  };
  process.on("SIGINT", handler);
  process.on("SIGTERM", handler);
  return () => {
    process.off("SIGINT", handler);
    process.off("SIGTERM", handler);
  };
}

/**
 * Listens for SIGINT/SIGTERM from now on and resolves with the first. Called before a process starts its adapters or
 * takes jobs, so a signal that arrives while start-up finishes still leads to a clean stop instead of the default kill.
 */
export function shutdownRequested(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    onShutdownSignal(resolve);
  });
}
