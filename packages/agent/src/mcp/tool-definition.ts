import type { TSchema } from "@sinclair/typebox";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { defineTool, type AnyToolDefinition } from "../tools/types.js";
import type { McpServerConnection } from "./server-connection.js";
import { providerSafeInputSchema } from "./input-schema.js";
import { mcpToolName } from "./tool-name.js";

/** The connection's own timeout answers first (and counts for the breaker); the executor's deadline is a backstop. */
const DEADLINE_GRACE_MS = 5_000;
const MAX_DESCRIPTION = 4_000;

/** An MCP server's tool as an agent tool: its input schema is the parameters the model sees and the registry checks. */
export function mcpToolDefinition(connection: McpServerConnection, tool: Tool): AnyToolDefinition {
  return defineTool({
    name: mcpToolName(connection.name, tool.name),
    description: describe(connection.name, tool),
    parameters: parametersOf(tool),
    // Only a server's own promise that the tool changes nothing lets calls share a batch.
    concurrency: tool.annotations?.readOnlyHint === true ? "parallel-safe" : "never-parallel",
    timeoutMs: connection.timeoutMs + DEADLINE_GRACE_MS,
    isAvailable: () => connection.connected,
    handler: (args, context) => connection.call(tool.name, argumentsOf(args), context.signal),
  });
}

function describe(server: string, tool: Tool): string {
  const text = tool.description?.trim() || tool.title?.trim() || `The ${tool.name} tool of the ${server} MCP server.`;
  return text.length > MAX_DESCRIPTION ? `${text.slice(0, MAX_DESCRIPTION)}…` : text;
}

/**
 * The plain JSON Schema, mended where providers refuse it (input-schema.ts): pi-ai validates plain JSON Schema (and
 * coerces "5" to 5 for a number, which a TypeBox-wrapped schema would not).
 */
function parametersOf(tool: Tool): TSchema {
  return providerSafeInputSchema(tool.inputSchema) as unknown as TSchema;
}

function argumentsOf(args: unknown): Record<string, unknown> {
  return typeof args === "object" && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}
