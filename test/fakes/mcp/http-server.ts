import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { buildFakeMcpServer } from "./fake-tools.mjs";

export interface FakeMcpHttpServerOptions {
  /** "streamable" (default) speaks Streamable HTTP at /mcp; "sse" is an older server: GET /mcp opens an SSE stream,
   * POST /mcp is refused with 405 and messages go to /messages. */
  mode?: "streamable" | "sse";
  /** Requests without this header value are answered 401. */
  requiredHeaders?: Record<string, string>;
}

export interface FakeMcpHttpServer {
  url: string;
  /** Header values seen on requests, by lower-case name. */
  seenHeaders: Map<string, Set<string>>;
  /** While true, tool calls are answered with HTTP 500 (a broken server, not a tool error). */
  failToolCalls: boolean;
  /** tools/call requests received (failed ones included). */
  toolCalls: number;
  /** Drops every Streamable HTTP session, as a restarted server would: old session ids get 404. */
  forgetSessions(): void;
  close(): Promise<void>;
}

/** An MCP server over HTTP on 127.0.0.1, in the test's own process, offering the same tools as stdio-server.mjs. */
export async function startFakeMcpHttpServer(options: FakeMcpHttpServerOptions = {}): Promise<FakeMcpHttpServer> {
  const mode = options.mode ?? "streamable";
  const streamable = new Map<string, StreamableHTTPServerTransport>();
  const sse = new Map<string, SSEServerTransport>();
  const servers: McpServer[] = [];
  const sockets = new Set<Socket>();
  const seenHeaders = new Map<string, Set<string>>();
  const state: FakeMcpHttpServer = { url: "", seenHeaders, failToolCalls: false, toolCalls: 0, forgetSessions: () => streamable.clear(), close: async () => undefined };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === "string") seenHeaders.set(name, (seenHeaders.get(name) ?? new Set()).add(value));
    }
    for (const [name, value] of Object.entries(options.requiredHeaders ?? {})) {
      if (req.headers[name.toLowerCase()] !== value) return void res.writeHead(401).end("unauthorized");
    }
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const body = req.method === "POST" ? await readJson(req) : undefined;
    if (isToolCall(body)) state.toolCalls += 1;
    if (state.failToolCalls && isToolCall(body)) return void res.writeHead(500).end("internal error");

    if (mode === "sse") {
      if (req.method === "GET" && url.pathname === "/mcp") {
        const transport = new SSEServerTransport("/messages", res);
        sse.set(transport.sessionId, transport);
        const server = buildFakeMcpServer({ name: "fake-sse" });
        servers.push(server);
        await server.connect(transport);
        return;
      }
      if (req.method === "POST" && url.pathname === "/messages") {
        const transport = sse.get(url.searchParams.get("sessionId") ?? "");
        if (!transport) return void res.writeHead(404).end("unknown session");
        return await transport.handlePostMessage(req, res, body);
      }
      return void res.writeHead(405).end("method not allowed");
    }

    if (url.pathname !== "/mcp") return void res.writeHead(404).end();
    const sessionId = req.headers["mcp-session-id"];
    const existing = typeof sessionId === "string" ? streamable.get(sessionId) : undefined;
    if (existing) return await existing.handleRequest(req, res, body);
    if (typeof sessionId === "string") return void res.writeHead(404).end("session not found");
    if (req.method !== "POST" || !isInitializeRequest(body)) return void res.writeHead(400).end("no session");
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void streamable.set(id, transport),
    });
    const server = buildFakeMcpServer({ name: "fake-http" });
    servers.push(server);
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const httpServer = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    });
  });
  httpServer.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
  const { port } = httpServer.address() as AddressInfo;
  state.url = `http://127.0.0.1:${port}/mcp`;
  state.close = async () => {
    await Promise.all(servers.map((s) => s.close().catch(() => undefined)));
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => httpServer.close(() => resolve()));
  };
  return state;
}

async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  try {
    return text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    return undefined;
  }
}

function isToolCall(body: unknown): boolean {
  return typeof body === "object" && body !== null && (body as { method?: unknown }).method === "tools/call";
}
