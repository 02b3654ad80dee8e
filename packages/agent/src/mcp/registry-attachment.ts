import type { Logger } from "../observability/logger.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { McpServerConnection } from "./server-connection.js";
import { mcpToolDefinition } from "./tool-definition.js";

/**
 * OpenAI refuses a request offering more than 128 tools, and every request of every chat would offer them all: MCP
 * tools stop joining a registry that holds this many, which leaves room for the tools a run adds of its own
 * (delegate_task, the memory tools of its scope).
 */
export const MAX_REGISTRY_TOOLS = 120;
/** A tool's input schema goes out with every request; one this large (a big tool has a few KB) is a broken or hostile server. */
export const MAX_SCHEMA_CHARS = 32_000;

/** Keeps one agent's registry holding exactly the tools each MCP server lists now. */
export class RegistryAttachment {
  private readonly registered = new Map<string, string[]>();
  private readonly reported = new Set<string>();

  constructor(private readonly registry: ToolRegistry, private readonly logger: Logger) {}

  sync(connection: McpServerConnection): void {
    for (const name of this.registered.get(connection.name) ?? []) this.registry.unregister(name);
    const names: string[] = [];
    const leftOver: string[] = [];
    for (const tool of connection.listedTools) {
      const definition = mcpToolDefinition(connection, tool);
      if (this.registry.has(definition.name)) {
        // Another tool (built-in, or an MCP tool whose name sanitizes the same) keeps the name; this one stays out.
        this.report(`${connection.name}:${tool.name}`, "MCP tool left out: its name is taken by another tool", { mcpServer: connection.name, mcpTool: tool.name, tool: definition.name });
        continue;
      }
      if (JSON.stringify(tool.inputSchema).length > MAX_SCHEMA_CHARS) {
        this.report(`${connection.name}:${tool.name}:schema`, "MCP tool left out: its input schema is too large", { mcpServer: connection.name, mcpTool: tool.name, maxChars: MAX_SCHEMA_CHARS });
        continue;
      }
      if (this.registry.names().length >= MAX_REGISTRY_TOOLS) {
        leftOver.push(tool.name);
        continue;
      }
      this.registry.register(definition);
      names.push(definition.name);
    }
    if (leftOver.length > 0) {
      this.report(`${connection.name}:${leftOver.length}`, "MCP tools left out: the agent offers at most this many tools", { mcpServer: connection.name, maxTools: MAX_REGISTRY_TOOLS, leftOut: leftOver.length });
    }
    this.registered.set(connection.name, names);
  }

  detach(): void {
    for (const names of this.registered.values()) for (const name of names) this.registry.unregister(name);
    this.registered.clear();
  }

  /** Once per distinct case, since every reconnect and list_changed syncs again. */
  private report(key: string, message: string, fields: Record<string, unknown>): void {
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.logger.warn(message, fields);
  }
}
