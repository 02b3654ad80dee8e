import type { Logger } from "../observability/logger.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { McpServerConnection } from "./server-connection.js";
import { mcpToolDefinition } from "./tool-definition.js";

/** Keeps one agent's registry holding exactly the tools each MCP server lists now. */
export class RegistryAttachment {
  private readonly registered = new Map<string, string[]>();
  private readonly reportedClashes = new Set<string>();

  constructor(private readonly registry: ToolRegistry, private readonly logger: Logger) {}

  sync(connection: McpServerConnection): void {
    for (const name of this.registered.get(connection.name) ?? []) this.registry.unregister(name);
    const names: string[] = [];
    for (const tool of connection.listedTools) {
      const definition = mcpToolDefinition(connection, tool);
      if (this.registry.has(definition.name)) {
        // Another tool (built-in, or an MCP tool whose name sanitizes the same) keeps the name; this one stays out.
        this.reportClash(connection.name, tool.name, definition.name);
        continue;
      }
      this.registry.register(definition);
      names.push(definition.name);
    }
    this.registered.set(connection.name, names);
  }

  detach(): void {
    for (const names of this.registered.values()) for (const name of names) this.registry.unregister(name);
    this.registered.clear();
  }

  private reportClash(server: string, tool: string, name: string): void {
    const key = `${server}:${tool}`;
    if (this.reportedClashes.has(key)) return;
    this.reportedClashes.add(key);
    this.logger.warn("MCP tool left out: its name is taken by another tool", { mcpServer: server, mcpTool: tool, tool: name });
  }
}
