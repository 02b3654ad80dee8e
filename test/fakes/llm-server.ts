import http from "node:http";
import type { AddressInfo, Socket } from "node:net";

export type ScriptedUsage = { prompt: number; completion: number };
export type ScriptedToolCall = { id?: string; name: string; arguments: string | Record<string, unknown> };
/**
 * `finishReason` overrides the one the reply would end with ("stop", or "tool_calls" with calls), e.g. "length" for a
 * reply cut off by the token limit; a call's `arguments` given as a string are sent as they are (cut JSON included).
 */
export type ScriptedReply =
  | { kind: "text"; text: string; chunks?: number; delayMsBetweenChunks?: number; usage?: ScriptedUsage; finishReason?: string }
  | { kind: "tools"; calls: ScriptedToolCall[]; text?: string; usage?: ScriptedUsage; finishReason?: string }
  | { kind: "error"; status: number; body?: unknown; headers?: Record<string, string> }
  | { kind: "hang"; afterText?: string }
  | { kind: "garbage" }
  | { kind: "drop" }
  /** A stream that starts (200, some text) and then loses its connection mid-way, as a crashing provider does. */
  | { kind: "break"; afterText?: string };
export type ScriptStep = ScriptedReply | ((request: RecordedRequest) => ScriptedReply);

export interface RecordedRequest {
  model: string;
  messages: unknown[];
  tools: unknown[];
  stream: boolean;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

export interface LlmServer {
  baseUrl: string;
  enqueue(...steps: ScriptStep[]): void;
  enqueueFor(model: string, ...steps: ScriptStep[]): void;
  requests: RecordedRequest[];
  pending(): number;
  close(): Promise<void>;
}

export interface LlmServerOptions {
  defaultReply?: ScriptStep;
  /** Waits between text chunks; injectable so tests with delays need not spend real time. */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

type Completion = {
  text: string;
  textChunks: number;
  calls: { id: string; name: string; arguments: string }[];
  usage: ScriptedUsage;
  delayMs: number;
  finishReason: string;
};

const NO_REPLY_MESSAGE = "llm-server: no scripted reply left";

export async function startLlmServer(options: LlmServerOptions = {}): Promise<LlmServer> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const now = options.now ?? Date.now;
  const shared: ScriptStep[] = [];
  const perModel = new Map<string, ScriptStep[]>();
  const requests: RecordedRequest[] = [];
  const modelsSeen = new Set<string>(["scripted-model"]);
  const sockets = new Set<Socket>();
  let toolCallCounter = 0;
  let completionCounter = 0;

  const nextStep = (model: string): ScriptStep | undefined =>
    perModel.get(model)?.shift() ?? shared.shift() ?? options.defaultReply;

  const toCompletion = (reply: Extract<ScriptedReply, { kind: "text" | "tools" }>, request: RecordedRequest): Completion => {
    const calls =
      reply.kind === "tools"
        ? reply.calls.map((call) => ({
            id: call.id ?? `call_${++toolCallCounter}`,
            name: call.name,
            arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
          }))
        : [];
    const text = reply.text ?? "";
    const estimatedCompletion = Math.ceil((text.length + calls.reduce((n, c) => n + c.arguments.length, 0)) / 4);
    return {
      text,
      textChunks: reply.kind === "text" ? Math.max(1, reply.chunks ?? 3) : 1,
      calls,
      usage: reply.usage ?? { prompt: Math.ceil(JSON.stringify(request.messages).length / 4), completion: estimatedCompletion },
      delayMs: reply.kind === "text" ? (reply.delayMsBetweenChunks ?? 0) : 0,
      finishReason: reply.finishReason ?? (calls.length > 0 ? "tool_calls" : "stop"),
    };
  };

  const handleChat = async (req: http.IncomingMessage, res: http.ServerResponse, raw: string): Promise<void> => {
    const parsed = parseJsonObject(raw);
    if (!parsed) return sendJson(res, 400, errorBody("llm-server: request body is not a JSON object", "invalid_request_error"));
    const request: RecordedRequest = {
      model: typeof parsed.model === "string" ? parsed.model : "",
      messages: Array.isArray(parsed.messages) ? parsed.messages : [],
      tools: Array.isArray(parsed.tools) ? parsed.tools : [],
      stream: parsed.stream === true,
      headers: lowercaseHeaders(req.headers),
      body: parsed,
    };
    requests.push(request);
    if (request.model) modelsSeen.add(request.model);
    const step = nextStep(request.model);
    if (!step) return sendJson(res, 500, errorBody(NO_REPLY_MESSAGE, "server_error"));
    let reply: ScriptedReply;
    try {
      reply = typeof step === "function" ? step(request) : step;
    } catch (error) {
      // A throwing script function is a bug in the test; surface it as loudly as a missing reply.
      const message = error instanceof Error ? error.message : String(error);
      return sendJson(res, 500, errorBody(`llm-server: script step threw: ${message}`, "server_error"));
    }
    const id = `chatcmpl-scripted-${++completionCounter}`;
    const created = Math.floor(now() / 1000);
    const head = { id, object: "chat.completion.chunk", created, model: request.model || "scripted-model" };
    switch (reply.kind) {
      case "error": {
        const body = reply.body ?? errorBody(`llm-server: scripted error ${reply.status}`, "scripted_error", String(reply.status));
        res.writeHead(reply.status, { ...reply.headers, "content-type": "application/json" });
        res.end(typeof body === "string" ? body : JSON.stringify(body));
        return;
      }
      case "drop":
        req.socket.destroy();
        return;
      case "garbage":
        res.writeHead(200, sseHeaders(request.stream));
        res.end(request.stream ? 'data: {"id": "broken", "choices": [\n\ndata: not json at all\n\n' : '{"id": "broken", "choices": [');
        return;
      case "break":
        res.writeHead(200, sseHeaders(request.stream));
        if (request.stream) {
          writeEvent(res, { ...head, choices: [{ index: 0, delta: { role: "assistant", content: reply.afterText ?? "" }, finish_reason: null }] });
        } else {
          res.write('{"id": "cut", "choices": [{"index": 0, "message": {"role": "assistant", "content": "');
        }
        // Let the bytes leave before the connection dies, so the client sees a started and then broken response.
        setTimeout(() => res.destroy(), 5);
        return;
      case "hang":
        res.writeHead(200, sseHeaders(request.stream));
        res.flushHeaders();
        if (request.stream && reply.afterText) {
          writeEvent(res, { ...head, choices: [{ index: 0, delta: { role: "assistant", content: reply.afterText }, finish_reason: null }] });
        }
        return;
      case "text":
      case "tools": {
        const completion = toCompletion(reply, request);
        if (!request.stream) return sendJson(res, 200, completionBody(head, completion));
        const includeUsage = isRecord(parsed.stream_options) && parsed.stream_options.include_usage === true;
        await streamCompletion(res, head, completion, includeUsage, sleep);
        return;
      }
    }
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const path = (req.url ?? "/").split("?")[0];
      if (req.method === "POST" && path === "/v1/chat/completions") {
        handleChat(req, res, Buffer.concat(chunks).toString("utf8")).catch((error: unknown) => {
          if (!res.headersSent) sendJson(res, 500, errorBody(`llm-server: ${String(error)}`, "server_error"));
          else res.destroy();
        });
      } else if (req.method === "GET" && path === "/v1/models") {
        const data = [...modelsSeen].map((id) => ({ id, object: "model", created: 0, owned_by: "llm-server" }));
        sendJson(res, 200, { object: "list", data });
      } else {
        sendJson(res, 404, errorBody(`llm-server: no route for ${req.method} ${path}`, "invalid_request_error"));
      }
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    enqueue: (...steps) => void shared.push(...steps),
    enqueueFor: (model, ...steps) => {
      const queue = perModel.get(model) ?? [];
      queue.push(...steps);
      perModel.set(model, queue);
    },
    requests,
    pending: () => shared.length + [...perModel.values()].reduce((n, queue) => n + queue.length, 0),
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Hanging streams and keep-alive connections would otherwise hold server.close() open forever.
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}

async function streamCompletion(
  res: http.ServerResponse,
  head: Record<string, unknown>,
  completion: Completion,
  includeUsage: boolean,
  sleep: (ms: number) => Promise<void>,
): Promise<void> {
  res.writeHead(200, sseHeaders(true));
  const delta = (d: Record<string, unknown>, finishReason: string | null = null) =>
    writeEvent(res, { ...head, choices: [{ index: 0, delta: d, logprobs: null, finish_reason: finishReason }] });
  delta({ role: "assistant", content: "" });
  const pieces = splitInto(completion.text, completion.textChunks);
  for (const [i, piece] of pieces.entries()) {
    if (i > 0 && completion.delayMs > 0) await sleep(completion.delayMs);
    if (res.destroyed) return;
    delta({ content: piece });
  }
  for (const [index, call] of completion.calls.entries()) {
    delta({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] });
    for (const piece of splitInto(call.arguments, Math.max(2, Math.ceil(call.arguments.length / 24)))) {
      delta({ tool_calls: [{ index, function: { arguments: piece } }] });
    }
  }
  delta({}, completion.finishReason);
  if (includeUsage) writeEvent(res, { ...head, choices: [], usage: usageBody(completion.usage) });
  if (!res.destroyed) res.end("data: [DONE]\n\n");
}

function completionBody(head: Record<string, unknown>, completion: Completion): Record<string, unknown> {
  const toolCalls = completion.calls.map((call) => ({ id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } }));
  const message = { role: "assistant", content: completion.text || null, refusal: null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) };
  return {
    ...head,
    object: "chat.completion",
    choices: [{ index: 0, message, logprobs: null, finish_reason: completion.finishReason }],
    usage: usageBody(completion.usage),
  };
}

function usageBody(usage: ScriptedUsage): Record<string, number> {
  return { prompt_tokens: usage.prompt, completion_tokens: usage.completion, total_tokens: usage.prompt + usage.completion };
}

/** Splits by code point so no piece carries half a surrogate pair. */
function splitInto(text: string, count: number): string[] {
  const chars = Array.from(text);
  const n = Math.min(count, chars.length);
  const pieces: string[] = [];
  for (let i = 0; i < n; i++) {
    pieces.push(chars.slice(Math.floor((i * chars.length) / n), Math.floor(((i + 1) * chars.length) / n)).join(""));
  }
  return pieces;
}

function writeEvent(res: http.ServerResponse, payload: unknown): void {
  if (!res.destroyed) res.write(`data: ${JSON.stringify(payload)}\n\n`);
}

function sseHeaders(stream: boolean): Record<string, string> {
  return stream
    ? { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive" }
    : { "content-type": "application/json" };
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

function errorBody(message: string, type: string, code: string | null = null): Record<string, unknown> {
  return { error: { message, type, code, param: null } };
}

function lowercaseHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

function parseJsonObject(raw: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(raw);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
