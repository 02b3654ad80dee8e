import type { IncomingMessage, ServerResponse } from "node:http";
import type { FakeWorld } from "./fake-world.js";
import { createBotMessage } from "./create-message.js";
import { editBotMessage } from "./edit-message.js";
import { channelPayload, memberPayload, userPayload, type Json } from "./payloads.js";
import type { Pings } from "./pings.js";
import { handleInteractionRoute, type InteractionRecords } from "./fake-interactions.js";

export interface SentMessage {
  id: string;
  channelId: string;
  content: string;
  /** The message it replies to (`message_reference.message_id`). */
  replyTo?: string;
  /** The request body as the client sent it. */
  body: Json;
  /** Who Discord would have notified. */
  pings: Pings;
  /** The message's action rows as they are now (after edits). */
  components: Json[];
  /** Every edit the bot made, in order (`content` is then the latest text). */
  edits: MessageEdit[];
}

export interface MessageEdit {
  content: string;
  components: Json[];
  body: Json;
}

export type SendFailure =
  | { kind: "status"; status: number; body?: Json }
  /** Closes the connection without an answer. */
  | { kind: "network" }
  | { kind: "rateLimit"; retryAfterSeconds: number }
  /** Creates the message but answers only after `delayMs`, or never if the client gives up first (a lost answer). */
  | { kind: "lateAnswer"; delayMs: number };

export interface RestRecords {
  sent: SentMessage[];
  typing: string[];
  unknownRoutes: string[];
  sendFailures: SendFailure[];
  /** The next message edits fail this way, in order. */
  editFailures: Exclude<SendFailure, { kind: "lateAnswer" }>[];
  /** Ids of messages returned again for a repeated nonce (`enforce_nonce`) instead of being created twice. */
  nonceReplays: string[];
  /** Messages created with a nonce, by channel and nonce, for `enforce_nonce`. */
  nonces: Map<string, { messageId: string; at: number }>;
  /** While set, `GET /gateway/bot` (the first call of a login) answers with this status. */
  discoveryFailure: number | undefined;
  /** `GET /gateway/bot` requests, answered or failed. */
  discoveries: number;
}

export interface RestDeps {
  world: FakeWorld;
  token: string;
  wsUrl: () => string;
  records: RestRecords;
  interactions: InteractionRecords;
  onChange: () => void;
}

/** The REST half of the fake: the routes discord.js calls at login and for sending, plus attachment files. */
export function handleRest(req: IncomingMessage, res: ServerResponse, rawBody: string, deps: RestDeps): void {
  const method = req.method ?? "GET";
  const url = new URL(req.url ?? "/", "http://fake");
  const file = method === "GET" ? deps.world.files.get(url.pathname) : undefined;
  if (file) {
    res.writeHead(200, { "content-type": file.contentType, "content-length": String(file.data.length) });
    res.end(file.data);
    return;
  }
  const route = /^\/api\/v10(\/.*)$/.exec(url.pathname)?.[1];
  if (route === undefined) return unknown(method, url.pathname, res, deps);
  const discovery = method === "GET" && route === "/gateway/bot";
  if (discovery) {
    deps.records.discoveries += 1;
    deps.onChange();
  }
  const authorized = req.headers.authorization === `Bot ${deps.token}`;
  const answer = (status: number, body: unknown): void => {
    deps.onChange();
    if (status === 204) res.writeHead(204).end();
    else json(res, status, body);
  };
  if (handleInteractionRoute(method, route, rawBody, authorized, deps.world, deps.interactions, answer)) return;
  if (!authorized) return json(res, 401, { message: "401: Unauthorized", code: 0 });

  const { world } = deps;
  let match: RegExpExecArray | null;
  if (discovery) {
    const failure = deps.records.discoveryFailure;
    if (failure !== undefined) return json(res, failure, { message: failure === 401 ? "401: Unauthorized" : `fake failure ${failure}`, code: 0 });
    return json(res, 200, { url: deps.wsUrl(), shards: 1, session_start_limit: { total: 1000, remaining: 999, reset_after: 0, max_concurrency: 1 } });
  }
  if (method === "GET" && route === "/users/@me") return json(res, 200, userPayload(world.bot));
  if ((match = /^\/channels\/(\d+)$/.exec(route)) && method === "GET") {
    const channel = world.channels.get(match[1] ?? "");
    return channel ? json(res, 200, channelPayload(channel, new Date().toISOString())) : unknownChannel(res);
  }
  if ((match = /^\/channels\/(\d+)\/typing$/.exec(route)) && method === "POST") {
    if (!world.channels.has(match[1] ?? "")) return unknownChannel(res);
    deps.records.typing.push(match[1] ?? "");
    deps.onChange();
    res.writeHead(204).end();
    return;
  }
  if ((match = /^\/channels\/(\d+)\/messages$/.exec(route)) && method === "POST") return createMessage(match[1] ?? "", rawBody, req, res, deps);
  if ((match = /^\/channels\/(\d+)\/messages\/(\d+)$/.exec(route)) && method === "PATCH") {
    const failure = deps.records.editFailures.shift();
    if (failure) return fail(failure, req, res);
    const answer = editBotMessage(match[1] ?? "", match[2] ?? "", rawBody, world, deps.records);
    deps.onChange();
    return json(res, answer.status, answer.body);
  }
  if ((match = /^\/guilds\/(\d+)\/members\/(\d+)$/.exec(route)) && method === "GET") {
    const guild = world.guilds.get(match[1] ?? "");
    const user = world.user(match[2] ?? "");
    if (!guild || !user) return json(res, 404, { message: "Unknown Member", code: 10007 });
    const roles = user.id === world.bot.id ? guild.roles.filter((r) => r.botHas).map((r) => r.id) : [];
    return json(res, 200, memberPayload(user, roles, new Date().toISOString()));
  }
  return unknown(method, url.pathname, res, deps);
}

function createMessage(channelId: string, rawBody: string, req: IncomingMessage, res: ServerResponse, deps: RestDeps): void {
  const failure = deps.records.sendFailures.shift();
  if (failure && failure.kind !== "lateAnswer") return fail(failure, req, res);
  const answer = createBotMessage(channelId, rawBody, deps.world, deps.records);
  deps.onChange();
  if (failure?.kind !== "lateAnswer") return json(res, answer.status, answer.body);
  // The message exists already; only the answer is lost on the way, as when Discord is slow and the client times out.
  const timer = setTimeout(() => {
    if (!res.destroyed) json(res, answer.status, answer.body);
  }, failure.delayMs);
  res.on("close", () => clearTimeout(timer));
}

function fail(failure: Exclude<SendFailure, { kind: "lateAnswer" }>, req: IncomingMessage, res: ServerResponse): void {
  if (failure.kind === "network") {
    req.socket.destroy();
    return;
  }
  if (failure.kind === "rateLimit") {
    const seconds = String(failure.retryAfterSeconds);
    res.writeHead(429, {
      "content-type": "application/json",
      "retry-after": seconds,
      "x-ratelimit-limit": "5",
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset-after": seconds,
      "x-ratelimit-bucket": "fake-bucket",
      "x-ratelimit-scope": "user",
    });
    res.end(JSON.stringify({ message: "You are being rate limited.", retry_after: failure.retryAfterSeconds, global: false }));
    return;
  }
  json(res, failure.status, failure.body ?? { message: `fake failure ${failure.status}`, code: 0 });
}

function unknownChannel(res: ServerResponse): void {
  json(res, 404, { message: "Unknown Channel", code: 10003 });
}

function unknown(method: string, path: string, res: ServerResponse, deps: RestDeps): void {
  // Loud on purpose: a route the client needs and the fake lacks should be obvious in the test output.
  console.error(`discord fake: no route for ${method} ${path}`);
  deps.records.unknownRoutes.push(`${method} ${path}`);
  json(res, 404, { message: "404: Not Found", code: 0 });
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}
