/** Settings shared by both kinds of MCP server. */
interface McpServerConfigBase {
  /** `[A-Za-z0-9_-]+`; the model sees the server's tools as `mcp_<name>_<tool>`. */
  name: string;
  /** Per-call timeout (config `timeout_s` × 1000). Default 60 000. Connecting and listing tools may take at least 30 s. */
  timeoutMs?: number;
  /** Default true; a disabled server is listed with state "disabled" and never started. */
  enabled?: boolean;
}

/** A server the manager starts as a child process and talks to over its stdin/stdout. */
export interface McpStdioServerConfig extends McpServerConfigBase {
  command: string;
  args?: string[];
  /** Added to a minimal inherited environment (HOME, PATH, …), so the gateway's own secrets do not reach the server.
   * Values are secrets: never logged. */
  env?: Record<string, string>;
  cwd?: string;
}

/** A server reached over Streamable HTTP, or the older HTTP+SSE transport when it refuses Streamable HTTP (4xx). */
export interface McpHttpServerConfig extends McpServerConfigBase {
  url: string;
  /** Sent with every request (e.g. Authorization). Values are secrets: never logged. */
  headers?: Record<string, string>;
}

export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

export type McpTransportKind = "stdio" | "http" | "sse";

export type McpServerState = "connecting" | "connected" | "retrying" | "open_circuit" | "disabled";

export interface McpServerStatus {
  name: string;
  /** "http" until a fallback to SSE has happened, then "sse". */
  transport: McpTransportKind;
  state: McpServerState;
  /** The model-facing names (`mcp_<server>_<tool>`) of the tools last listed by the server. */
  tools: string[];
  /** Why the server is not connected, or the failure that opened the circuit. */
  error?: string;
  /** Epoch ms: the next connection attempt ("retrying") or the time the open circuit lets a probe through. */
  retryAt?: number;
}

export type McpTestResult = { ok: true; tools: string[] } | { ok: false; error: string };

export function isStdioServer(config: McpServerConfig): config is McpStdioServerConfig {
  return "command" in config;
}

export const DEFAULT_MCP_TIMEOUT_MS = 60_000;
