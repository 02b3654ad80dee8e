const MAX_TOOL_NAME = 64;

/** `mcp_<server>_<tool>` with every character outside [A-Za-z0-9_] made `_`, cut to the registry's 64 characters. */
export function mcpToolName(server: string, tool: string): string {
  return `mcp_${server}_${tool}`.replace(/[^A-Za-z0-9_]/g, "_").slice(0, MAX_TOOL_NAME);
}
