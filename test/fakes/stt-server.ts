import http from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** What the next transcription request is answered with. */
export type SttReply =
  | { kind: "text"; text: string }
  | { kind: "error"; status: number; body?: string }
  /** 200 with a body that is not JSON. */
  | { kind: "garbage" }
  /** Never answers (until the server closes), for timeouts. */
  | { kind: "hang" };

export interface RecordedTranscription {
  model: string;
  /** The `response_format` field, when sent. */
  responseFormat?: string;
  fileName: string;
  mimeType: string;
  bytes: Buffer;
  authorization?: string;
}

export interface SttServer {
  /** The API root to use as HERMES_STT_BASE_URL (ends in /v1). */
  readonly baseUrl: string;
  /** Well-formed requests that carried the right key, in arrival order. */
  readonly requests: RecordedTranscription[];
  /** Requests refused before a reply was chosen (bad path, key or body), with the status they got. */
  readonly refused: { status: number; reason: string }[];
  enqueue(...replies: SttReply[]): void;
  close(): Promise<void>;
}

export interface SttServerOptions {
  /** The key requests must carry as `Authorization: Bearer <key>`; without it none is checked. */
  apiKey?: string;
  /** The answer when nothing is queued (default: a 500 saying so). */
  defaultReply?: SttReply;
}

/**
 * A stand-in for OpenAI's `POST /v1/audio/transcriptions` on 127.0.0.1: it parses the multipart body as the real
 * API does (a `file` part with bytes, a `model` field), checks the bearer key and answers `{ "text": … }`, or a
 * scripted failure.
 */
export async function startSttServer(options: SttServerOptions = {}): Promise<SttServer> {
  const queue: SttReply[] = [];
  const requests: RecordedTranscription[] = [];
  const refused: { status: number; reason: string }[] = [];
  const sockets = new Set<Socket>();
  const hanging = new Set<http.ServerResponse>();

  const refuse = (res: http.ServerResponse, status: number, reason: string, code: string): void => {
    refused.push({ status, reason });
    respond(res, status, JSON.stringify({ error: { message: reason, type: "invalid_request_error", code } }));
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      void handle(req, res, Buffer.concat(chunks)).catch((error: unknown) => {
        if (!res.headersSent) respond(res, 500, JSON.stringify({ error: { message: `stt-server: ${String(error)}` } }));
      });
    });
  });

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer): Promise<void> => {
    if (req.method !== "POST" || req.url !== "/v1/audio/transcriptions") return refuse(res, 404, `no route ${req.method} ${req.url}`, "not_found");
    const authorization = req.headers.authorization;
    if (options.apiKey !== undefined && authorization !== `Bearer ${options.apiKey}`) return refuse(res, 401, "Incorrect API key provided", "invalid_api_key");
    let form: FormData;
    try {
      form = await new Response(body, { headers: { "content-type": req.headers["content-type"] ?? "" } }).formData();
    } catch {
      return refuse(res, 400, "the body is not multipart/form-data", "invalid_body");
    }
    const file = form.get("file");
    const model = form.get("model");
    if (!(file instanceof Blob) || file.size === 0) return refuse(res, 400, "a non-empty `file` part is required", "missing_file");
    if (typeof model !== "string" || model === "") return refuse(res, 400, "a `model` field is required", "missing_model");
    const responseFormat = form.get("response_format");
    requests.push({
      model,
      ...(typeof responseFormat === "string" && { responseFormat }),
      fileName: file instanceof File ? file.name : "blob",
      mimeType: file.type,
      bytes: Buffer.from(await file.arrayBuffer()),
      ...(authorization !== undefined && { authorization }),
    });
    const reply = queue.shift() ?? options.defaultReply ?? { kind: "error", status: 500, body: '{"error":{"message":"stt-server: no scripted reply left"}}' };
    if (reply.kind === "hang") {
      hanging.add(res);
      return;
    }
    if (reply.kind === "garbage") return respond(res, 200, "<html>this is not JSON", "text/html");
    if (reply.kind === "error") return respond(res, reply.status, reply.body ?? JSON.stringify({ error: { message: `scripted ${reply.status}` } }));
    respond(res, 200, JSON.stringify({ text: reply.text }));
  };

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
    requests,
    refused,
    enqueue: (...replies) => void queue.push(...replies),
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const res of hanging) res.destroy();
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}

function respond(res: http.ServerResponse, status: number, body: string, contentType = "application/json"): void {
  res.writeHead(status, { "content-type": contentType });
  res.end(body);
}
