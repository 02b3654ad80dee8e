import type { Stream } from "node:stream";
import { SseError, SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpHttpServerConfig, McpStdioServerConfig, McpTransportKind } from "./types.js";

export interface OpenedTransport {
  transport: Transport;
  /** The child's stderr (stdio only), read for log lines and the reason of a crash. */
  stderr?: Stream | null;
}

export function stdioTransport(config: McpStdioServerConfig): OpenedTransport {
  const transport = new StdioClientTransport({
    command: config.command,
    ...(config.args ? { args: config.args } : {}),
    ...(config.env ? { env: config.env } : {}),
    ...(config.cwd ? { cwd: config.cwd } : {}),
    // Piped rather than inherited: a server's output belongs in our logs (tagged with its name), not on our stderr.
    stderr: "pipe",
  });
  return { transport, stderr: transport.stderr };
}

export function httpTransport(config: McpHttpServerConfig, kind: Exclude<McpTransportKind, "stdio">): OpenedTransport {
  const url = new URL(config.url);
  const requestInit: RequestInit = config.headers ? { headers: { ...config.headers } } : {};
  return { transport: kind === "http" ? new StreamableHTTPClientTransport(url, { requestInit, fetch: boundedFetch }) : new SSEClientTransport(url, { requestInit }) };
}

/** What the SDK lets a stdio server send in one message: a larger answer is a broken or hostile server. */
export const MAX_HTTP_ANSWER_BYTES = 10 * 1024 * 1024;

/**
 * fetch whose successful POST answers (where Streamable HTTP results come, as JSON or an SSE stream) fail once they
 * pass MAX_HTTP_ANSWER_BYTES, instead of being read into memory however large. The long-lived GET stream is left alone.
 */
export async function boundedFetch(input: string | URL, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  if (init?.method !== "POST" || !response.ok || response.body === null) return response;
  let received = 0;
  const limit = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      received += chunk.byteLength;
      if (received > MAX_HTTP_ANSWER_BYTES) controller.error(new Error(`the server's answer passed ${MAX_HTTP_ANSWER_BYTES / 1024 / 1024} MB`));
      else controller.enqueue(chunk);
    },
  });
  return new Response(response.body.pipeThrough(limit), { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** The MCP spec's backwards-compatibility rule: a 4xx answer to the Streamable HTTP initialize means an HTTP+SSE server. */
export function refusesStreamableHttp(error: unknown): boolean {
  return error instanceof StreamableHTTPError && error.code !== undefined && error.code >= 400 && error.code < 500;
}

/** The URL without credentials, query or fragment, for logs. */
export function describeUrl(raw: string): string {
  try {
    const url = new URL(raw);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return "(invalid URL)";
  }
}

/** An error's message, with the HTTP status when the SDK's HTTP errors leave it out of the text. */
export function describeError(error: unknown): string {
  const message = error instanceof Error ? withCause(error) : String(error);
  const status = error instanceof StreamableHTTPError || error instanceof SseError ? error.code : undefined;
  return status !== undefined && status > 0 && !message.includes(String(status)) ? `${message} (HTTP ${status})` : message;
}

/** fetch says only "fetch failed"; the reason (ECONNREFUSED, a DNS failure) is in its cause. */
function withCause(error: Error): string {
  const cause: unknown = error.cause;
  if (!(cause instanceof Error)) return error.message;
  const code = (cause as Error & { code?: unknown }).code;
  const reason = typeof code === "string" ? code : cause.message;
  return reason && !error.message.includes(reason) ? `${error.message} (${reason})` : error.message;
}
