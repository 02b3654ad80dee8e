import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ToolListChangedNotificationSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "../observability/logger.js";
import type { ToolResult } from "../tools/types.js";
import { toToolResult } from "./call-result.js";
import { durationText, isTimeout, listAllTools, sessionGone } from "./requests.js";
import { CircuitBreaker, type CircuitBreakerOptions } from "./circuit-breaker.js";
import { SecretMask } from "./secret-mask.js";
import { StderrTail } from "./stderr-tail.js";
import { describeError, describeUrl, httpTransport, refusesStreamableHttp, stdioTransport, type OpenedTransport } from "./transports.js";
import { DEFAULT_MCP_TIMEOUT_MS, isStdioServer, type McpServerConfig, type McpServerStatus, type McpTransportKind } from "./types.js";
import { mcpToolName } from "./tool-name.js";

export interface RestartBackoff {
  /** First delay before reconnecting. Default 1 000 ms; doubled after each failed attempt. */
  initialMs?: number;
  /** Longest delay. Default 60 000 ms. */
  maxMs?: number;
}

export interface ServerConnectionOptions {
  logger: Logger;
  now: () => number;
  restartBackoff?: RestartBackoff;
  breaker?: CircuitBreakerOptions;
  /** False for a one-off check (`hermes mcp test`): a failure is reported, not retried. */
  reconnect: boolean;
}

const CLIENT_INFO = { name: "hermes-gateway", version: "0.1.0" };
/** A short per-call timeout must not make a slow-starting server (npx, a cold container) look broken. */
const MIN_CONNECT_TIMEOUT_MS = 30_000;

type Phase = "idle" | "connecting" | "connected" | "retrying" | "disabled" | "closed";

/**
 * One configured MCP server: its client connection, its tool list, and the policy around them — reconnecting with
 * exponential backoff when it cannot start or goes away (a crashed stdio server), and a circuit breaker on calls.
 */
export class McpServerConnection {
  readonly name: string;
  readonly timeoutMs: number;
  private phase: Phase;
  private transportKind: McpTransportKind;
  private client: Client | undefined;
  /** The client of a handshake under way, closed by close() so shutting down never waits for a hung server. */
  private handshaking: Client | undefined;
  private tools: Tool[] = [];
  private error: string | undefined;
  private retryAt: number | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private failedAttempts = 0;
  private connectedAt = 0;
  private readonly breaker: CircuitBreaker;
  private readonly listeners = new Set<() => void>();
  private readonly logger: Logger;
  private readonly secrets: SecretMask;
  private toolListRequests = 0;
  /** A list_changed came during the handshake, after which the list it got may already be stale. */
  private changedWhileConnecting = false;

  constructor(readonly config: McpServerConfig, private readonly options: ServerConnectionOptions) {
    this.name = config.name;
    this.timeoutMs = config.timeoutMs ?? DEFAULT_MCP_TIMEOUT_MS;
    this.phase = config.enabled === false ? "disabled" : "idle";
    this.transportKind = isStdioServer(config) ? "stdio" : "http";
    this.breaker = new CircuitBreaker(options.now, options.breaker);
    this.logger = options.logger.child({ mcpServer: config.name });
    this.secrets = new SecretMask(config);
  }

  /** Called whenever the tool list or availability changes (connected, lost, list_changed). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get connected(): boolean {
    return this.phase === "connected";
  }

  get listedTools(): readonly Tool[] {
    return this.tools;
  }

  status(): McpServerStatus {
    const base = { name: this.name, transport: this.transportKind, tools: this.tools.map((t) => mcpToolName(this.name, t.name)) };
    switch (this.phase) {
      case "connected": {
        if (!this.breaker.isOpen) return { ...base, state: "connected" };
        const probeAt = this.breaker.probeAt;
        return { ...base, state: "open_circuit", error: this.breaker.failureReason, ...(probeAt !== undefined ? { retryAt: probeAt } : {}) };
      }
      case "retrying":
        return { ...base, state: "retrying", error: this.error, ...(this.retryAt !== undefined ? { retryAt: this.retryAt } : {}) };
      case "connecting":
        // A reconnection attempt of a server that failed before is still "retrying": its last error is the news.
        return this.error !== undefined ? { ...base, state: "retrying", error: this.error } : { ...base, state: "connecting" };
      case "disabled":
        return { ...base, state: "disabled" };
      default:
        return { ...base, state: "connecting" };
    }
  }

  /** One connection attempt; on failure the next is scheduled (when reconnecting). Never throws. */
  async connect(): Promise<boolean> {
    if (this.phase === "disabled" || this.phase === "closed" || this.phase === "connecting" || this.phase === "connected") return this.phase === "connected";
    this.phase = "connecting";
    this.changedWhileConnecting = false;
    this.retryAt = undefined;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    // A configuration the transport cannot take (a malformed URL) is this server's failure, not the caller's exception.
    const opened = await this.open().catch((error: unknown) => ({ ok: false as const, error: describeError(error) }));
    // close() may have run while the handshake was out.
    if (this.isClosed()) {
      if (opened.ok) await opened.client.close().catch(() => undefined);
      return false;
    }
    if (!opened.ok) {
      this.fail(opened.error);
      return false;
    }
    this.client = opened.client;
    this.tools = opened.tools;
    this.phase = "connected";
    this.error = undefined;
    this.connectedAt = this.options.now();
    // A fresh process or session is itself a probe: calls start from a closed circuit.
    this.breaker.reset();
    this.logger.info("MCP server connected", { transport: this.transportKind, tools: this.tools.length });
    this.notify();
    if (this.changedWhileConnecting) void this.refreshTools(opened.client);
    return true;
  }

  async call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> {
    const client = this.client;
    if (this.phase !== "connected" || !client) return this.unavailable(this.describeDown());
    const gate = this.breaker.tryPass();
    if (!gate.pass) {
      const probe = gate.probeAt !== undefined ? `; next try at ${new Date(gate.probeAt).toISOString()}` : "";
      return this.unavailable(`circuit open after repeated failures: ${gate.lastError}${probe}`);
    }
    try {
      const result = await client.callTool({ name: tool, arguments: args }, undefined, { signal, timeout: this.timeoutMs });
      this.breaker.recordSuccess();
      // A compatibility-shaped result ({ toolResult }) comes from pre-2024-11 servers, which the SDK no longer speaks.
      return toToolResult({ content: [], ...result }, { server: this.name, tool });
    } catch (error) {
      if (signal.aborted) {
        this.breaker.recordNeither();
        return { isError: true, content: "Cancelled: the run was stopped before this call finished." };
      }
      const reason = isTimeout(error) ? `timed out after ${durationText(this.timeoutMs)}` : this.secrets.mask(describeError(error));
      this.breaker.recordFailure(reason);
      // A server that restarted has forgotten our session (404): only a new initialize gets it answering again.
      if (sessionGone(error)) this.dropConnection(client, reason);
      if (this.breaker.isOpen) this.logger.warn("MCP server circuit opened", { tool, error: reason });
      return { isError: true, content: `MCP server "${this.name}" failed on ${tool}: ${reason}`, details: { mcpServer: this.name, mcpTool: tool } };
    }
  }

  async close(): Promise<void> {
    this.phase = "closed";
    this.error = undefined;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const clients = [this.client, this.handshaking];
    this.client = undefined;
    this.handshaking = undefined;
    await Promise.all(clients.map((client) => client?.close().catch(() => undefined)));
  }

  private async open(): Promise<{ ok: true; client: Client; tools: Tool[] } | { ok: false; error: string }> {
    if (isStdioServer(this.config)) return await this.handshake(stdioTransport(this.config));
    if (this.transportKind === "sse") return await this.handshake(httpTransport(this.config, "sse"));
    const streamable = await this.handshake(httpTransport(this.config, "http"), true);
    if (streamable.ok || !streamable.refused) return streamable;
    this.logger.info("MCP server refused Streamable HTTP; trying HTTP+SSE", { url: describeUrl(this.config.url) });
    const sse = await this.handshake(httpTransport(this.config, "sse"));
    if (sse.ok) this.transportKind = "sse";
    return sse.ok ? sse : { ok: false, error: `Streamable HTTP: ${streamable.error}; SSE: ${sse.error}` };
  }

  private async handshake(
    opened: OpenedTransport,
    mayFallBack = false,
  ): Promise<{ ok: true; client: Client; tools: Tool[] } | { ok: false; error: string; refused: boolean }> {
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    this.handshaking = client;
    const stderr = opened.stderr ? new StderrTail(opened.stderr, (line) => this.logger.debug("MCP server stderr", { line: this.secrets.mask(line) })) : undefined;
    try {
      const timeout = Math.max(this.timeoutMs, MIN_CONNECT_TIMEOUT_MS);
      // Listened for before the list is asked for: a change announced right around it must not be missed.
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => void this.refreshTools(client));
      await client.connect(opened.transport, { timeout });
      const tools = await listAllTools(client, timeout);
      client.onclose = () => this.lost(client, stderr);
      return { ok: true, client, tools };
    } catch (error) {
      await client.close().catch(() => undefined);
      const refused = mayFallBack && refusesStreamableHttp(error);
      return { ok: false, error: withStderr(describeError(error), stderr), refused };
    } finally {
      if (this.handshaking === client) this.handshaking = undefined;
    }
  }

  private async refreshTools(client: Client): Promise<void> {
    if (client === this.handshaking) this.changedWhileConnecting = true;
    if (client !== this.client) return;
    // Notifications can come in a burst: only the answer to the latest request may set the list.
    const request = ++this.toolListRequests;
    try {
      const tools = await listAllTools(client, Math.max(this.timeoutMs, MIN_CONNECT_TIMEOUT_MS));
      if (client !== this.client || request !== this.toolListRequests) return;
      this.tools = tools;
      this.logger.info("MCP server tool list changed", { tools: tools.length });
      this.notify();
    } catch (error) {
      this.logger.warn("MCP server tool list could not be refreshed; keeping the previous list", { error });
    }
  }

  private lost(client: Client, stderr: StderrTail | undefined): void {
    if (client !== this.client || this.phase === "closed") return;
    this.disconnected(withStderr("connection closed", stderr));
  }

  private dropConnection(client: Client, reason: string): void {
    if (client !== this.client) return;
    // Unset first: closing the client calls its onclose (lost()) at once, which must not count this loss again.
    this.client = undefined;
    void client.close().catch(() => undefined);
    this.disconnected(reason);
  }

  private disconnected(reason: string): void {
    this.client = undefined;
    // A connection that held for a while was a success: the backoff starts again from its first step.
    if (this.options.now() - this.connectedAt >= this.maxDelay()) this.failedAttempts = 0;
    this.fail(reason);
    this.notify();
  }

  private fail(reason: string): void {
    const error = this.secrets.mask(reason);
    this.error = error;
    if (!this.options.reconnect) {
      this.phase = "retrying";
      return;
    }
    const initial = this.options.restartBackoff?.initialMs ?? 1_000;
    const delay = Math.min(initial * 2 ** this.failedAttempts, this.maxDelay());
    this.failedAttempts += 1;
    this.phase = "retrying";
    this.retryAt = this.options.now() + delay;
    this.logger.warn("MCP server unavailable; retrying", { transport: this.transportKind, error, retryInMs: delay });
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.connect();
    }, delay);
    this.retryTimer.unref();
  }

  private isClosed(): boolean {
    return this.phase === "closed";
  }

  private maxDelay(): number {
    return this.options.restartBackoff?.maxMs ?? 60_000;
  }

  private describeDown(): string {
    if (this.phase === "disabled") return "disabled in the configuration";
    const next = this.retryAt !== undefined ? `; next attempt at ${new Date(this.retryAt).toISOString()}` : "";
    return this.error !== undefined ? `${this.error}${next}` : "still connecting";
  }

  private unavailable(reason: string): ToolResult {
    return { isError: true, content: `MCP server "${this.name}" is unavailable (${reason}).`, details: { mcpServer: this.name } };
  }

  private notify(): void {
    for (const listener of this.listeners) {
      try {
        listener();
      } catch (error) {
        this.logger.error("MCP tool list listener failed", { error });
      }
    }
  }
}

function withStderr(message: string, stderr: StderrTail | undefined): string {
  const tail = stderr?.last();
  return tail ? `${message} (stderr: ${tail})` : message;
}
