import type { IncomingMessage } from "node:http";
import { WebSocket } from "ws";
import type { Json } from "./payloads.js";

const INTENT_GUILD_MESSAGES = 1 << 9;
const INTENT_DIRECT_MESSAGES = 1 << 12;
const INTENT_MESSAGE_CONTENT = 1 << 15;

export interface GatewayStats {
  connections: number;
  identifies: number;
  resumes: number;
  refusedResumes: number;
  /** IDENTIFY and RESUME attempts closed while `refuseLogins` was on. */
  refusedLogins: number;
  heartbeats: number;
  /** Events sent again on the last resume. */
  replayedEvents: number;
  /** Intents of the last IDENTIFY. */
  intents?: number;
}

export interface DropOptions {
  /** Close code; 4000 (unknown error) is one a client resumes after. */
  code?: number;
  /** Kill the TCP connection without a close frame (the client sees 1006). */
  abrupt?: boolean;
  /** On resume, also replay this many events the client had already received (Discord may deliver twice). */
  replayAlreadySent?: number;
}

export interface GatewayDeps {
  token: string;
  botId: string;
  wsUrl: () => string;
  heartbeatIntervalMs: number;
  readyUser: () => Json;
  guildIds: () => string[];
  guildCreate: (guildId: string) => Json;
  onChange: () => void;
}

interface Session {
  id: string;
  seq: number;
  intents: number;
  log: Json[];
  socket: WebSocket | undefined;
  replayOverlap: number;
}

/** The websocket half of the fake: HELLO, IDENTIFY → READY + GUILD_CREATE, heartbeats, RESUME with replay, drops. */
export class FakeGateway {
  readonly stats: GatewayStats = { connections: 0, identifies: 0, resumes: 0, refusedResumes: 0, refusedLogins: 0, heartbeats: 0, replayedEvents: 0 };
  private session: Session | undefined;
  private readonly sockets = new Set<WebSocket>();
  private readonly droppedByUs = new WeakSet<WebSocket>();
  private refuseResume = false;
  private sessionCounter = 0;
  /** Sockets waiting for their HELLO while `holdHello` is on. */
  private held: WebSocket[] | undefined;
  /** While set, IDENTIFY and RESUME are answered by closing with this code (4004 bad token, 4014 intents). */
  private refusal: number | undefined;

  constructor(private readonly deps: GatewayDeps) {}

  get connected(): boolean {
    return this.session?.socket?.readyState === WebSocket.OPEN;
  }

  accept(socket: WebSocket, request: IncomingMessage): void {
    const query = new URL(request.url ?? "/", "ws://fake").searchParams;
    this.sockets.add(socket);
    this.stats.connections += 1;
    socket.on("close", (code) => this.onClose(socket, code));
    socket.on("error", () => undefined);
    if (query.get("encoding") !== "json" || query.get("v") !== "10") {
      console.error(`discord fake: unsupported gateway query ${request.url ?? ""}`);
      socket.close(4012, "Invalid API version or encoding");
      return;
    }
    socket.on("message", (raw) => this.onMessage(socket, raw.toString()));
    if (this.held) this.held.push(socket);
    else this.hello(socket);
    this.deps.onChange();
  }

  /** New connections get no HELLO until `releaseHello` (a gateway that accepts connections but is stuck). */
  holdHello(): void {
    this.held ??= [];
  }

  releaseHello(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const socket of held) this.hello(socket);
  }

  /** Sends an event to the session's client, or keeps it for a resume while the client is away. */
  dispatch(event: string, data: Json): void {
    const session = this.session;
    if (!session) return;
    const visible = this.visibleTo(session, event, data);
    if (!visible) return;
    session.seq += 1;
    const payload = { op: 0, t: event, s: session.seq, d: visible };
    session.log.push(payload);
    if (session.socket?.readyState === WebSocket.OPEN) send(session.socket, payload);
  }

  drop(options: DropOptions = {}): void {
    const session = this.session;
    const socket = session?.socket;
    if (!session || !socket) throw new Error("discord fake: no connected client to drop");
    session.replayOverlap = options.replayAlreadySent ?? 0;
    session.socket = undefined;
    this.droppedByUs.add(socket);
    if (options.abrupt) socket.terminate();
    else socket.close(options.code ?? 4000, "discord fake: connection dropped");
  }

  /** Closes every websocket, the session's and any still connecting: 1006 kills them without a close frame. */
  dropAll(code: number): void {
    const session = this.session;
    if (session) {
      session.socket = undefined;
      session.replayOverlap = 0;
    }
    for (const socket of this.sockets) {
      this.droppedByUs.add(socket);
      if (code === 1006) socket.terminate();
      else socket.close(code, "discord fake: connection dropped");
    }
  }

  /** Until `acceptLogins`, every IDENTIFY and RESUME is answered by closing with `code`, as Discord does for a bad token. */
  refuseLogins(code: number): void {
    this.refusal = code;
  }

  acceptLogins(): void {
    this.refusal = undefined;
  }

  /** The next RESUME is answered with INVALID_SESSION (not resumable), so the client has to identify again. */
  refuseNextResume(): void {
    this.refuseResume = true;
  }

  close(): void {
    for (const socket of this.sockets) socket.terminate();
    this.sockets.clear();
    this.session = undefined;
  }

  private hello(socket: WebSocket): void {
    send(socket, { op: 10, d: { heartbeat_interval: this.deps.heartbeatIntervalMs }, s: null, t: null });
  }

  private onMessage(socket: WebSocket, raw: string): void {
    let payload: Json;
    try {
      payload = JSON.parse(raw) as Json;
    } catch {
      socket.close(4002, "Decode error");
      return;
    }
    const data = (payload.d ?? {}) as Json;
    switch (payload.op) {
      case 1:
        this.stats.heartbeats += 1;
        send(socket, { op: 11, d: null, s: null, t: null });
        break;
      case 2:
        this.identify(socket, data);
        break;
      case 6:
        this.resume(socket, data);
        break;
      case 3:
      case 4:
      case 8:
        break;
      default:
        console.error(`discord fake: unknown gateway opcode ${String(payload.op)}`);
        socket.close(4001, "Unknown opcode");
    }
    this.deps.onChange();
  }

  private identify(socket: WebSocket, data: Json): void {
    if (this.refuseLogin(socket)) return;
    if (data.token !== this.deps.token) {
      socket.close(4004, "Authentication failed");
      return;
    }
    this.stats.identifies += 1;
    this.stats.intents = typeof data.intents === "number" ? data.intents : 0;
    this.sessionCounter += 1;
    this.session = { id: `fake-session-${this.sessionCounter}`, seq: 0, intents: this.stats.intents, log: [], socket, replayOverlap: 0 };
    this.dispatch("READY", {
      v: 10,
      user: this.deps.readyUser(),
      guilds: this.deps.guildIds().map((id) => ({ id, unavailable: true })),
      session_id: this.session.id,
      resume_gateway_url: this.deps.wsUrl(),
      shard: [0, 1],
      application: { id: this.deps.botId, flags: 0 },
      private_channels: [],
      relationships: [],
      user_settings: {},
    });
    for (const guildId of this.deps.guildIds()) this.dispatch("GUILD_CREATE", this.deps.guildCreate(guildId));
  }

  private resume(socket: WebSocket, data: Json): void {
    if (this.refuseLogin(socket)) return;
    this.stats.resumes += 1;
    const session = this.session;
    if (this.refuseResume || !session || data.session_id !== session.id || data.token !== this.deps.token) {
      this.refuseResume = false;
      this.stats.refusedResumes += 1;
      this.session = undefined;
      send(socket, { op: 9, d: false, s: null, t: null });
      return;
    }
    session.socket = socket;
    const after = typeof data.seq === "number" ? data.seq : 0;
    const firstMissed = session.log.findIndex((entry) => (entry.s as number) > after);
    const from = Math.max(0, (firstMissed === -1 ? session.log.length : firstMissed) - session.replayOverlap);
    session.replayOverlap = 0;
    const replay = session.log.slice(from);
    this.stats.replayedEvents = replay.length;
    for (const entry of replay) send(socket, entry);
    this.dispatch("RESUMED", {});
  }

  private refuseLogin(socket: WebSocket): boolean {
    if (this.refusal === undefined) return false;
    this.stats.refusedLogins += 1;
    socket.close(this.refusal, "discord fake: login refused");
    return true;
  }

  private onClose(socket: WebSocket, code: number): void {
    this.sockets.delete(socket);
    const session = this.session;
    if (session?.socket === socket) {
      session.socket = undefined;
      // A client closing normally ends its session, as on Discord; any other close keeps it resumable.
      if ((code === 1000 || code === 1001) && !this.droppedByUs.has(socket)) this.session = undefined;
    }
    this.deps.onChange();
  }

  /** What the session's intents let the client see of an event; undefined when nothing. */
  private visibleTo(session: Session, event: string, data: Json): Json | undefined {
    if (event !== "MESSAGE_CREATE") return data;
    const isDm = data.guild_id === undefined;
    if (isDm ? !(session.intents & INTENT_DIRECT_MESSAGES) : !(session.intents & INTENT_GUILD_MESSAGES)) return undefined;
    if (session.intents & INTENT_MESSAGE_CONTENT || isDm) return data;
    const author = data.author as Json;
    const mentions = (data.mentions as Json[] | undefined) ?? [];
    if (author.id === this.deps.botId || mentions.some((m) => m.id === this.deps.botId)) return data;
    return { ...data, content: "", attachments: [], embeds: [] };
  }
}

function send(socket: WebSocket, payload: Json): void {
  if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(payload));
}
