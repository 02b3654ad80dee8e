import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { WebSocketServer, type WebSocket } from "ws";
import { readBlocks, updatePostedMessage, type MessageEdit } from "./fake-chat-update.js";
import { pressButton, type ButtonPressInput, type ButtonPressResult } from "./slack-interactions.js";

export interface PostedMessage {
  channel: string;
  text: string;
  thread_ts?: string;
  mrkdwn?: boolean;
  /** The ts the fake gave the message. */
  ts: string;
  /** The message's current Block Kit blocks (as posted, or as the last chat.update naming blocks left them). */
  blocks?: unknown[];
}

export interface ApiCall {
  method: string;
  params: Record<string, unknown>;
  /** The token the call was made with (Authorization: Bearer, or the `token` parameter). */
  token?: string;
}

export interface ReactionCall {
  action: "add" | "remove";
  channel: string;
  timestamp: string;
  name: string;
}

export type ScriptedFailure = { error: string } | { status: number; retryAfterSeconds?: number };

export interface FakeSlackFile {
  id: string;
  name: string;
  title: string;
  mimetype: string;
  filetype: string;
  size: number;
  mode: "hosted";
  url_private: string;
  url_private_download: string;
}

export interface FakeSlackUser {
  id: string;
  name: string;
  realName?: string;
  displayName?: string;
}

export interface SocketEnvelopeOptions {
  type?: string;
  retryAttempt?: number;
  retryReason?: string;
}

export interface FakeSocketMode {
  /** Resolves once a client has connected and been greeted with `hello`. */
  waitForConnection(): Promise<void>;
  /** With `holdHello`: greets the (next) connected client, finishing its handshake. */
  greet(): Promise<void>;
  /** Sends an envelope to the connected client; resolves with the envelope id once the client acknowledges it. */
  send(payload: Record<string, unknown>, options?: SocketEnvelopeOptions): Promise<string>;
  /** Envelope ids acknowledged by the client, in order. */
  readonly acks: string[];
  /** How many clients have been greeted with `hello` so far (each reconnect counts). */
  readonly greetings: number;
  /** Cuts every Socket Mode connection without a close handshake (a network drop); resolves once they are closed. */
  dropConnections(): Promise<void>;
  /** Sends Slack's `disconnect` message (as when Slack recycles a connection) to every connected client. */
  askToReconnect(reason?: string): void;
}

/** A post to a slash command's response_url (`POST /hooks/commands/<id>`). */
export interface SlashReply {
  /** The `<id>` part of the response_url. */
  id: string;
  body: Record<string, unknown>;
}

export interface FakeSlack {
  /** The value for SLACK_API_URL (the Web API lives under `/api/`). */
  apiUrl: string;
  botToken: string;
  appToken: string;
  botUserId: string;
  botId: string;
  calls: ApiCall[];
  /** Posted messages with their current text and blocks (chat.update changes them in place). */
  posted: PostedMessage[];
  /** Every accepted chat.update, in order. */
  edits: MessageEdit[];
  reactions: ReactionCall[];
  /** Each file download: the file id and the Authorization header it came with. */
  downloads: { fileId: string; authorization?: string }[];
  socket: FakeSocketMode;
  /** Posts to response_urls made by `responseUrl`, in order. */
  slashReplies: SlashReply[];
  /** A response_url for a slash command, served by the fake like Slack's hooks host. */
  responseUrl(id: string): string;
  addUser(user: FakeSlackUser): void;
  /** A person presses a button on a posted message: signed to the gateway's interactivity URL, or over Socket Mode. */
  pressButton(input: ButtonPressInput): Promise<ButtonPressResult>;
  addFile(input: { name: string; mimetype: string; content: Buffer | string }): FakeSlackFile;
  /** The next call of `method` fails this way (Slack's ok:false answer, or an HTTP status). */
  failNext(method: string, failure: ScriptedFailure): void;
  /** The next call of `method` is not answered until the returned function is called (a slow Slack). */
  holdNext(method: string): () => void;
  /** Every call of `method` fails this way until the returned function is called (a lasting outage or refusal). */
  failEvery(method: string, failure: ScriptedFailure): () => void;
  close(): Promise<void>;
}

export interface FakeSlackOptions {
  botToken?: string;
  appToken?: string;
  botUserId?: string;
  botId?: string;
  botName?: string;
  teamId?: string;
  /** Socket Mode clients are not greeted with `hello` until `socket.greet()` (a slow handshake). */
  holdHello?: boolean;
}

type Json = Record<string, unknown>;
type Answer = { status: number; body: Json; headers?: Record<string, string> };

/**
 * A stand-in for Slack on 127.0.0.1: the Web API methods the adapter uses (`POST /api/<method>`, form-encoded or
 * JSON, answered `{ok: …}`), private file downloads that need the bot token, and a Socket Mode websocket that
 * `apps.connections.open` points to.
 */
export async function startFakeSlack(options: FakeSlackOptions = {}): Promise<FakeSlack> {
  const botToken = options.botToken ?? "xoxb-fake-bot-token";
  const appToken = options.appToken ?? "xapp-fake-app-token";
  const botUserId = options.botUserId ?? "UBOT";
  const botId = options.botId ?? "BBOT";
  const botName = options.botName ?? "hermes";
  const teamId = options.teamId ?? "T1";
  const calls: ApiCall[] = [];
  const posted: PostedMessage[] = [];
  const edits: MessageEdit[] = [];
  const reactions: ReactionCall[] = [];
  const downloads: { fileId: string; authorization?: string }[] = [];
  const slashReplies: SlashReply[] = [];
  const reactionState = new Set<string>();
  const users = new Map<string, FakeSlackUser>();
  const files = new Map<string, { file: FakeSlackFile; content: Buffer }>();
  const failures = new Map<string, ScriptedFailure[]>();
  const lastingFailures = new Map<string, ScriptedFailure>();
  const holds = new Map<string, Promise<void>[]>();
  const sockets = new Set<Socket>();
  let counter = 0;
  let base = "";

  const nextTs = (): string => {
    counter += 1;
    return `${1_800_000_000 + counter}.${String(counter).padStart(6, "0")}`;
  };

  const methods: Record<string, (params: Json, token: string | undefined) => Answer> = {
    "auth.test": (_params, token) =>
      token === botToken
        ? ok({ url: "https://fake.slack.test/", team: "Fake", user: botName, team_id: teamId, user_id: botUserId, bot_id: botId })
        : fail("invalid_auth"),
    "chat.postMessage": (params, token) => {
      if (token !== botToken) return fail("invalid_auth");
      const channel = str(params.channel);
      const text = str(params.text);
      if (!channel) return fail("channel_not_found");
      if (!text) return fail("no_text");
      if (text.length > 40_000) return fail("msg_too_long");
      const ts = nextTs();
      const message: PostedMessage = { channel, text, ts };
      const threadTs = str(params.thread_ts);
      if (threadTs) message.thread_ts = threadTs;
      if (params.mrkdwn !== undefined) message.mrkdwn = params.mrkdwn === true || params.mrkdwn === "true";
      const blocks = readBlocks(params.blocks);
      if (blocks) message.blocks = blocks;
      posted.push(message);
      return ok({ channel, ts, message: { type: "message", user: botUserId, bot_id: botId, text, ts, thread_ts: threadTs } });
    },
    "chat.update": (params, token) => (token === botToken ? { status: 200, body: updatePostedMessage(posted, edits, params) } : fail("invalid_auth")),
    "reactions.add": (params, token) => reaction("add", params, token),
    "reactions.remove": (params, token) => reaction("remove", params, token),
    "users.info": (params, token) => {
      if (token !== botToken) return fail("invalid_auth");
      const user = users.get(str(params.user));
      if (!user) return fail("user_not_found");
      return ok({ user: { id: user.id, name: user.name, real_name: user.realName ?? user.name, profile: { display_name: user.displayName ?? "", real_name: user.realName ?? user.name } } });
    },
    "apps.connections.open": (_params, token) => (token === appToken ? ok({ url: `${base.replace(/^http/, "ws")}/socket-mode` }) : fail("invalid_auth")),
  };

  function reaction(action: "add" | "remove", params: Json, token: string | undefined): Answer {
    if (token !== botToken) return fail("invalid_auth");
    const call: ReactionCall = { action, channel: str(params.channel), timestamp: str(params.timestamp), name: str(params.name) };
    reactions.push(call);
    const key = `${call.channel}:${call.timestamp}:${call.name}`;
    if (action === "add") {
      if (reactionState.has(key)) return fail("already_reacted");
      reactionState.add(key);
    } else {
      if (!reactionState.delete(key)) return fail("no_reaction");
    }
    return ok({});
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://fake");
      const file = /^\/files\/([^/]+)\//.exec(url.pathname);
      if (req.method === "GET" && file?.[1]) return serveFile(file[1], req, res);
      const hook = /^\/hooks\/commands\/([^/]+)$/.exec(url.pathname)?.[1];
      if (req.method === "POST" && hook) {
        slashReplies.push({ id: hook, body: parseParams(req.headers["content-type"] ?? "", Buffer.concat(chunks).toString("utf8")) });
        // Like Slack's hooks host: a bare "ok".
        return void res.writeHead(200, { "content-type": "text/html" }).end("ok");
      }
      const method = /^\/api\/([\w.]+)$/.exec(url.pathname)?.[1];
      if (req.method !== "POST" || !method) return send(res, { status: 404, body: { ok: false, error: "not_found" } });
      const params = parseParams(req.headers["content-type"] ?? "", Buffer.concat(chunks).toString("utf8"));
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
      const token = bearer ?? (typeof params.token === "string" ? params.token : undefined);
      calls.push({ method, params, token });
      const answer = (): void => {
        const scripted = failures.get(method)?.shift() ?? lastingFailures.get(method);
        if (scripted) return send(res, "error" in scripted ? fail(scripted.error) : scriptedHttpFailure(scripted));
        const handler = methods[method];
        send(res, handler ? handler(params, token) : fail("unknown_method"));
      };
      const held = holds.get(method)?.shift();
      if (held) void held.then(() => (res.destroyed ? undefined : answer()));
      else answer();
    });
  });

  function serveFile(id: string, req: http.IncomingMessage, res: http.ServerResponse): void {
    downloads.push({ fileId: id, authorization: req.headers.authorization });
    const stored = files.get(id);
    // Like Slack: without the bot token a private file URL answers with the sign-in page.
    if (req.headers.authorization !== `Bearer ${botToken}`) {
      res.writeHead(200, { "content-type": "text/html" }).end("<html><body>Sign in to Slack</body></html>");
      return;
    }
    if (!stored) return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": stored.file.mimetype, "content-length": String(stored.content.length) }).end(stored.content);
  }

  const wss = new WebSocketServer({ noServer: true });
  const clients = new Set<WebSocket>();
  const acks: string[] = [];
  const ackWaiters = new Map<string, () => void>();
  let connectionWaiters: (() => void)[] = [];
  const greeted = new Set<WebSocket>();
  let helloHeld = options.holdHello === true;
  let greetings = 0;
  const hello = (ws: WebSocket): void => {
    ws.send(JSON.stringify({ type: "hello", num_connections: 1, connection_info: { app_id: "A1" }, debug_info: { host: "fake" } }));
    greeted.add(ws);
    greetings += 1;
    const waiting = connectionWaiters;
    connectionWaiters = [];
    for (const resolve of waiting) resolve();
  };
  let clientWaiters: (() => void)[] = [];
  let envelopeCounter = 0;
  server.on("upgrade", (req, socket, head) => {
    if (new URL(req.url ?? "/", "http://fake").pathname !== "/socket-mode") return void socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => {
      clients.add(ws);
      ws.on("close", () => {
        clients.delete(ws);
        greeted.delete(ws);
      });
      ws.on("message", (data) => {
        let envelopeId: unknown;
        try {
          envelopeId = (JSON.parse(String(data)) as Json).envelope_id;
        } catch {
          return;
        }
        if (typeof envelopeId !== "string") return;
        acks.push(envelopeId);
        ackWaiters.get(envelopeId)?.();
      });
      if (!helloHeld) hello(ws);
      const waiting = clientWaiters;
      clientWaiters = [];
      for (const resolve of waiting) resolve();
    });
  });

  const socket: FakeSocketMode = {
    acks,
    get greetings() {
      return greetings;
    },
    askToReconnect: (reason = "refresh_requested") => {
      for (const ws of greeted) ws.send(JSON.stringify({ type: "disconnect", reason, debug_info: { host: "fake" } }));
    },
    dropConnections: async () => {
      const closed = [...clients].map((ws) => new Promise<void>((resolve) => ws.once("close", () => resolve())));
      for (const ws of clients) ws.terminate();
      await Promise.all(closed);
    },
    waitForConnection: () => (greeted.size > 0 ? Promise.resolve() : new Promise<void>((resolve) => connectionWaiters.push(resolve))),
    greet: async () => {
      helloHeld = false;
      if (clients.size === 0) await new Promise<void>((resolve) => clientWaiters.push(resolve));
      for (const ws of clients) if (!greeted.has(ws)) hello(ws);
    },
    send: (payload, envelope = {}) => {
      const client = [...greeted][0];
      if (!client) return Promise.reject(new Error("fake slack: no Socket Mode client is connected"));
      envelopeCounter += 1;
      const envelopeId = `env-${envelopeCounter}`;
      const acked = new Promise<string>((resolve) => ackWaiters.set(envelopeId, () => resolve(envelopeId)));
      client.send(
        JSON.stringify({
          envelope_id: envelopeId,
          type: envelope.type ?? "events_api",
          payload,
          accepts_response_payload: false,
          retry_attempt: envelope.retryAttempt ?? 0,
          retry_reason: envelope.retryReason ?? "",
        }),
      );
      return acked;
    },
  };

  server.on("connection", (connection) => {
    sockets.add(connection);
    connection.on("close", () => sockets.delete(connection));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let closing: Promise<void> | undefined;

  return {
    apiUrl: base,
    botToken,
    appToken,
    botUserId,
    botId,
    calls,
    posted,
    edits,
    reactions,
    downloads,
    socket,
    slashReplies,
    responseUrl: (id) => `${base}/hooks/commands/${encodeURIComponent(id)}`,
    addUser: (user) => void users.set(user.id, user),
    pressButton: (input) => pressButton({ posted, socket, botUserId, botId, teamId, base }, input),
    addFile: ({ name, mimetype, content }) => {
      const id = `F${String(files.size + 1).padStart(4, "0")}`;
      const bytes = Buffer.isBuffer(content) ? content : Buffer.from(content, "utf8");
      const url = `${base}/files/${id}/${encodeURIComponent(name)}`;
      const file: FakeSlackFile = { id, name, title: name, mimetype, filetype: name.split(".").pop() ?? "", size: bytes.length, mode: "hosted", url_private: url, url_private_download: `${url}?download=1` };
      files.set(id, { file, content: bytes });
      return file;
    },
    failNext: (method, failure) => {
      const queue = failures.get(method) ?? [];
      queue.push(failure);
      failures.set(method, queue);
    },
    failEvery: (method, failure) => {
      lastingFailures.set(method, failure);
      return () => void lastingFailures.delete(method);
    },
    holdNext: (method) => {
      let release = (): void => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const queue = holds.get(method) ?? [];
      queue.push(held);
      holds.set(method, queue);
      return release;
    },
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        for (const client of clients) client.terminate();
        wss.close();
        server.close(() => resolve());
        for (const connection of sockets) connection.destroy();
      });
      return closing;
    },
  };
}

function parseParams(contentType: string, raw: string): Json {
  if (contentType.includes("application/json")) {
    try {
      const parsed: unknown = JSON.parse(raw);
      return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Json) : {};
    } catch {
      return {};
    }
  }
  return Object.fromEntries(new URLSearchParams(raw).entries());
}

function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function ok(fields: Json): Answer {
  return { status: 200, body: { ok: true, ...fields } };
}

function fail(error: string): Answer {
  return { status: 200, body: { ok: false, error } };
}

function scriptedHttpFailure(failure: { status: number; retryAfterSeconds?: number }): Answer {
  const headers = failure.retryAfterSeconds !== undefined ? { "retry-after": String(failure.retryAfterSeconds) } : undefined;
  return { status: failure.status, body: { ok: false, error: failure.status === 429 ? "ratelimited" : "fatal_error" }, headers };
}

function send(res: http.ServerResponse, answer: Answer): void {
  res.writeHead(answer.status, { "content-type": "application/json; charset=utf-8", ...answer.headers }).end(JSON.stringify(answer.body));
}
