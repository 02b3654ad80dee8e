import http from "node:http";
import type { AddressInfo, Socket } from "node:net";

export type AnthropicToolUse = { id?: string; name: string; input: Record<string, unknown> };
export type AnthropicReply =
  | { kind: "text"; text: string; stopReason?: "end_turn" | "max_tokens" }
  | { kind: "tools"; calls: AnthropicToolUse[]; text?: string }
  | { kind: "error"; status: number; type?: string; message?: string; headers?: Record<string, string> };

export interface AnthropicRequest {
  apiKey: string | undefined;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  /** Names of the declared tools (empty when none). */
  tools: string[];
  /** The status the fake answered with. */
  status: number;
}

export interface AnthropicServer {
  /** The base URL an Anthropic client takes (the SDK appends /v1/messages). */
  baseUrl: string;
  enqueue(...replies: AnthropicReply[]): void;
  requests: AnthropicRequest[];
  pending(): number;
  close(): Promise<void>;
}

export interface AnthropicServerOptions {
  /** Keys answered with 401 authentication_error, as the real API answers a revoked key. */
  rejectedKeys?: readonly string[];
  /**
   * Model ids answered at GET /v1/models, as the real API lists them. Without it that route is a 404, like an
   * Anthropic-compatible proxy that keeps no list.
   */
  models?: readonly string[];
}

const TOOLS_REQUIRED =
  "messages: `tool_use` and `tool_result` blocks can only be sent in a request that defines `tools`";

/**
 * A stand-in for Anthropic's Messages API (POST /v1/messages, streamed as server-sent events) that plays scripted
 * replies. Like the real API it answers 400 when the transcript holds tool_use/tool_result blocks but no tools are
 * declared, and 401 for a rejected key; these checks come before the script, so they cost no scripted reply.
 */
export async function startAnthropicServer(options: AnthropicServerOptions = {}): Promise<AnthropicServer> {
  const script: AnthropicReply[] = [];
  const requests: AnthropicRequest[] = [];
  const sockets = new Set<Socket>();
  const rejected = new Set(options.rejectedKeys ?? []);
  let ids = 0;

  const handle = (req: http.IncomingMessage, res: http.ServerResponse, raw: string): void => {
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : v ?? ""]));
    const apiKey = headers["x-api-key"];
    const body = parseObject(raw);
    const tools = Array.isArray(body?.["tools"]) ? (body["tools"] as Array<{ name?: unknown }>).map((t) => String(t.name)) : [];
    const record = (status: number): void => {
      requests.push({ apiKey, headers, body: body ?? {}, tools, status });
    };
    if (req.method === "GET" && req.url?.split("?")[0] === "/v1/models" && options.models) {
      const status = apiKey === undefined || rejected.has(apiKey) ? 401 : 200;
      record(status);
      if (status === 401) return sendError(res, 401, "authentication_error", "invalid x-api-key");
      return sendModelList(res, options.models);
    }
    if (req.method !== "POST" || req.url?.split("?")[0] !== "/v1/messages") {
      record(404);
      return sendError(res, 404, "not_found_error", `anthropic-server: no route ${req.method} ${req.url}`);
    }
    if (!body) {
      record(400);
      return sendError(res, 400, "invalid_request_error", "anthropic-server: body is not a JSON object");
    }
    if (apiKey === undefined || rejected.has(apiKey)) {
      record(401);
      return sendError(res, 401, "authentication_error", "invalid x-api-key");
    }
    if (tools.length === 0 && holdsToolBlocks(body["messages"])) {
      record(400);
      return sendError(res, 400, "invalid_request_error", TOOLS_REQUIRED);
    }
    const reply = script.shift();
    if (!reply) {
      record(500);
      return sendError(res, 500, "api_error", "anthropic-server: no scripted reply left");
    }
    if (reply.kind === "error") {
      record(reply.status);
      return sendError(res, reply.status, reply.type ?? errorType(reply.status), reply.message ?? `scripted ${reply.status}`, reply.headers);
    }
    record(200);
    streamReply(res, reply, String(body["model"] ?? "unknown"), ++ids);
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => handle(req, res, Buffer.concat(chunks).toString("utf8")));
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    enqueue: (...replies) => {
      script.push(...replies);
    },
    requests,
    pending: () => script.length,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function streamReply(res: http.ServerResponse, reply: Exclude<AnthropicReply, { kind: "error" }>, model: string, id: number): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", "request-id": `req_${id}` });
  const send = (event: string, data: Record<string, unknown>): void => {
    res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
  };
  send("message_start", {
    message: { id: `msg_${id}`, type: "message", role: "assistant", model, content: [], stop_reason: null, usage: { input_tokens: 12, output_tokens: 1 } },
  });
  let index = 0;
  const text = reply.text ?? "";
  if (text.length > 0) {
    send("content_block_start", { index, content_block: { type: "text", text: "" } });
    // Two deltas, so the client has to join streamed text.
    const half = Math.ceil(text.length / 2);
    for (const part of [text.slice(0, half), text.slice(half)].filter((p) => p.length > 0)) {
      send("content_block_delta", { index, delta: { type: "text_delta", text: part } });
    }
    send("content_block_stop", { index });
    index += 1;
  }
  const calls = reply.kind === "tools" ? reply.calls : [];
  calls.forEach((call, n) => {
    send("content_block_start", { index, content_block: { type: "tool_use", id: call.id ?? `toolu_${id}_${n}`, name: call.name, input: {} } });
    send("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(call.input) } });
    send("content_block_stop", { index });
    index += 1;
  });
  const stopReason = reply.kind === "tools" ? "tool_use" : (reply.stopReason ?? "end_turn");
  send("message_delta", { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: Math.max(1, Math.ceil(text.length / 4)) } });
  send("message_stop", {});
  res.end();
}

function sendModelList(res: http.ServerResponse, models: readonly string[]): void {
  const data = models.map((id) => ({ type: "model", id, display_name: id, created_at: "2025-01-01T00:00:00Z" }));
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ data, has_more: false, first_id: models[0] ?? null, last_id: models.at(-1) ?? null }));
}

function holdsToolBlocks(messages: unknown): boolean {
  if (!Array.isArray(messages)) return false;
  return messages.some((message: { content?: unknown }) =>
    Array.isArray(message?.content) &&
    message.content.some((block: { type?: unknown }) => block?.type === "tool_use" || block?.type === "tool_result"));
}

function errorType(status: number): string {
  if (status === 429) return "rate_limit_error";
  if (status === 529) return "overloaded_error";
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status >= 500) return "api_error";
  return "invalid_request_error";
}

function sendError(res: http.ServerResponse, status: number, type: string, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify({ type: "error", error: { type, message } }));
}

function parseObject(raw: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
