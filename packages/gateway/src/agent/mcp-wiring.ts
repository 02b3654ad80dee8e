import { McpManager, redactSecrets, type Logger, type McpServerConfig, type McpServerStatus, type McpTestResult, type ToolRegistry } from "@hermes/agent";
import type { GatewayConfig, McpServerSettings } from "../config/gateway-config.js";
import { configSecrets } from "../config/secrets.js";

/** The MCP tool servers of one process that runs agents: connected once, their tools attached to every agent. */
export interface McpTools {
  /** Registers every server's tools in the registry and keeps them in sync; returns the detach. */
  attach(registry: ToolRegistry): () => void;
  /** Each configured server's state, errors masked (for /readyz). */
  status(): McpServerStatus[];
  close(): Promise<void>;
}

const NO_MCP_TOOLS: McpTools = { attach: () => () => undefined, status: () => [], close: async () => undefined };

/** The agent core's config of one server, from config.yaml's `mcp_servers.<name>`. */
export function mcpServerConfig(settings: McpServerSettings): McpServerConfig {
  const common = { name: settings.name, timeoutMs: Math.round(settings.timeoutS * 1000), enabled: settings.enabled };
  const transport = settings.transport;
  if (transport.kind === "http") return { ...common, url: transport.url, ...(transport.headers && { headers: { ...transport.headers } }) };
  return {
    ...common,
    command: transport.command,
    args: [...transport.args],
    ...(transport.env && { env: { ...transport.env } }),
    ...(transport.cwd !== undefined && { cwd: transport.cwd }),
  };
}

/**
 * Starts connecting in the background and returns at once: a slow or failing server never holds up or stops start-up
 * (the manager logs it and retries), and its tools appear in the registries as soon as it connects.
 */
export function startMcpTools(config: GatewayConfig, logger: Logger): McpTools {
  const servers = config.mcpServers ?? [];
  if (servers.length === 0) return NO_MCP_TOOLS;
  const mcpLogger = logger.child({ component: "mcp" });
  const manager = new McpManager({ servers: servers.map(mcpServerConfig), logger: mcpLogger });
  const started = manager.start().catch((error: unknown) => mcpLogger.error("mcp servers could not be started", { error }));
  const secrets = configSecrets(config);
  return {
    attach: (registry) => manager.attach(registry),
    status: () => manager.status().map((status) => (status.error === undefined ? status : { ...status, error: redactSecrets(status.error, secrets) })),
    close: async () => {
      await manager.close();
      await started;
    },
  };
}

/** Connects to one configured server, lists its tools and closes (doctor, `hermes mcp`); the error is masked. */
export async function testMcpServer(config: GatewayConfig, settings: McpServerSettings, logger: Logger): Promise<McpTestResult> {
  const manager = new McpManager({ servers: [mcpServerConfig({ ...settings, enabled: true })], logger });
  try {
    const result = await manager.test(settings.name);
    return result.ok ? result : { ok: false, error: redactSecrets(result.error, configSecrets(config)) };
  } finally {
    await manager.close();
  }
}
