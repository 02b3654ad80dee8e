/**
 * MCP tool servers (Model Context Protocol, @modelcontextprotocol/sdk client).
 *
 * Usage (one manager per process that runs agents):
 *
 *   const mcp = new McpManager({
 *     servers: [
 *       { name: "files", command: "node", args: ["server.mjs"], env: { TOKEN: "…" }, cwd: "/srv", timeoutMs: 60_000 },
 *       { name: "search", url: "https://mcp.example/mcp", headers: { Authorization: "Bearer …" }, enabled: true },
 *     ],
 *     logger,
 *     // optional: now (clock), restartBackoff { initialMs: 1000, maxMs: 60000 }, breaker { failureThreshold: 3, openMs: 60000 }
 *   });
 *   await mcp.start();                    // never throws; resolves once each server's first attempt ended
 *   const detach = mcp.attach(registry);  // tools appear as mcp_<server>_<tool>, follow list_changed and reconnects
 *   mcp.status();                         // [{ name, transport, state, tools, error?, retryAt? }] for /readyz, doctor, `hermes mcp list`
 *   await mcp.test("files");              // { ok: true, tools } | { ok: false, error }: its own connection, then closed
 *   detach(); await mcp.close();
 *
 * Behaviour: a server that cannot start or whose connection closes (a crashed stdio server) is reconnected with
 * backoff (1 s, 2 s, 4 s … 60 s; state "retrying" with error and retryAt) and its tools are hidden from the model
 * meanwhile. Calls time out after timeoutMs; 3 consecutive failures (a protocol or transport error, or a timeout — not
 * a tool's own isError answer) open the server's circuit (state "open_circuit"): calls are answered at once with
 * `MCP server "<name>" is unavailable (…)` until, after 60 s, one probe call goes through; its success closes it.
 * Text content is kept, images become ToolResult.images, other content is described; the executor's result budget
 * applies. An http server answering the Streamable HTTP initialize with a 4xx is spoken to over HTTP+SSE (transport
 * "sse"); one that answers a call with 404 (it forgot the session, e.g. restarted) is reconnected. Connecting and
 * listing tools get max(timeoutMs, 30 s). Env values and headers are never logged, and are masked wherever a server
 * echoes them (errors, status, stderr lines); stdio servers get only a minimal inherited environment plus `env`.
 * Status `tools` are the model-facing names; a server's tools keep their last list while it is down.
 */
export { McpManager, type McpManagerOptions } from "./manager.js";
export type { RestartBackoff } from "./server-connection.js";
export type { CircuitBreakerOptions } from "./circuit-breaker.js";
export { mcpToolName } from "./tool-name.js";
export { describeUrl as describeMcpUrl } from "./transports.js";
export {
  DEFAULT_MCP_TIMEOUT_MS,
  isStdioServer,
  type McpHttpServerConfig,
  type McpServerConfig,
  type McpServerState,
  type McpServerStatus,
  type McpStdioServerConfig,
  type McpTestResult,
  type McpTransportKind,
} from "./types.js";
