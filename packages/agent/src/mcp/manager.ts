import type { Logger } from "../observability/logger.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { CircuitBreakerOptions } from "./circuit-breaker.js";
import { RegistryAttachment } from "./registry-attachment.js";
import { McpServerConnection, type RestartBackoff } from "./server-connection.js";
import type { McpServerConfig, McpServerStatus, McpTestResult } from "./types.js";

export interface McpManagerOptions {
  servers: readonly McpServerConfig[];
  logger: Logger;
  /** Clock for the circuit breaker and the times in status(); default Date.now. */
  now?: () => number;
  restartBackoff?: RestartBackoff;
  breaker?: CircuitBreakerOptions;
}

/** The configured MCP servers of one process, their connections and the registries their tools are offered in. */
export class McpManager {
  private readonly connections: McpServerConnection[] = [];
  private readonly logger: Logger;
  private started: Promise<void> | undefined;

  constructor(private readonly options: McpManagerOptions) {
    this.logger = options.logger;
    const seen = new Set<string>();
    for (const config of options.servers) {
      if (seen.has(config.name)) {
        this.logger.error("MCP server configured twice; the first entry is used", { mcpServer: config.name });
        continue;
      }
      seen.add(config.name);
      this.connections.push(new McpServerConnection(config, this.connectionOptions(true)));
    }
  }

  /** Resolves when every enabled server's first connection attempt has ended; failures are retried in the background. */
  start(): Promise<void> {
    this.started ??= Promise.all(this.connections.map((c) => c.connect())).then(() => undefined);
    return this.started;
  }

  /** Offers every server's tools in `registry` now and as they change; returns the function that takes them out. */
  attach(registry: ToolRegistry): () => void {
    const attachment = new RegistryAttachment(registry, this.logger);
    const unsubscribe = this.connections.map((connection) => {
      attachment.sync(connection);
      return connection.onChange(() => attachment.sync(connection));
    });
    let attached = true;
    return () => {
      if (!attached) return;
      attached = false;
      for (const stop of unsubscribe) stop();
      attachment.detach();
    };
  }

  status(): McpServerStatus[] {
    return this.connections.map((c) => c.status());
  }

  /** A separate connection that lists the server's tools and closes (for `hermes mcp test` and doctor). */
  async test(name: string): Promise<McpTestResult> {
    const config = this.connections.find((c) => c.name === name)?.config;
    if (!config) return { ok: false, error: `no MCP server named "${name}" is configured` };
    const probe = new McpServerConnection({ ...config, enabled: true }, this.connectionOptions(false));
    try {
      const connected = await probe.connect();
      const status = probe.status();
      return connected ? { ok: true, tools: status.tools } : { ok: false, error: status.error ?? "could not connect" };
    } finally {
      await probe.close();
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.connections.map((c) => c.close()));
  }

  private connectionOptions(reconnect: boolean): ConstructorParameters<typeof McpServerConnection>[1] {
    return {
      logger: this.logger,
      now: this.options.now ?? Date.now,
      reconnect,
      ...(this.options.restartBackoff ? { restartBackoff: this.options.restartBackoff } : {}),
      ...(this.options.breaker ? { breaker: this.options.breaker } : {}),
    };
  }
}
