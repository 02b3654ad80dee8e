import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { WebSocketServer } from "ws";
import { FakeGateway, type DropOptions, type GatewayStats } from "./fake-gateway.js";
import { buttonPressPayload, newInteractionRecords, slashCommandPayload, type FakeInteraction, type InteractionRoute } from "./fake-interactions.js";
import { handleRest, type MessageEdit, type RestRecords, type SendFailure, type SentMessage } from "./fake-rest.js";
import { FakeWorld, type FakeFile, type FakeGuild, type PostOptions } from "./fake-world.js";
import { userPayload, type FakeUser, type Json } from "./payloads.js";
import { snowflakeGenerator } from "./snowflake.js";

export type { FakeInteraction, InteractionReply, InteractionRoute } from "./fake-interactions.js";
export type { DropOptions, FakeFile, FakeGuild, FakeUser, GatewayStats, MessageEdit, PostOptions, SendFailure, SentMessage };
export type { Pings } from "./pings.js";

export interface DiscordFakeOptions {
  token?: string;
  botName?: string;
  /** Small by default so heartbeats happen during tests. */
  heartbeatIntervalMs?: number;
}

export interface PostedMessage {
  id: string;
  channelId: string;
  payload: Json;
}

/**
 * A stand-in for Discord on 127.0.0.1: the REST API (one HTTP server) and the gateway websocket (upgrades on the same
 * port), with helpers to play users, inspect what the bot sent, and break the connection.
 */
export interface DiscordFake {
  /** The REST base for discord.js's `rest.api` / DISCORD_API_URL, e.g. http://127.0.0.1:PORT/api. */
  readonly apiUrl: string;
  readonly wsUrl: string;
  readonly token: string;
  readonly bot: FakeUser;
  readonly sent: SentMessage[];
  /** Channel ids the bot sent "typing…" to. */
  readonly typing: string[];
  readonly unknownRoutes: string[];
  /** Ids of messages a repeated send got back through `enforce_nonce` instead of a second copy. */
  readonly nonceReplays: string[];
  readonly gateway: GatewayStats;
  readonly connected: boolean;
  addUser(username: string, options?: { bot?: boolean; globalName?: string }): FakeUser;
  /** A guild with text channels and roles (`botRoles` are held by the bot). */
  addGuild(options: { name: string; channels?: string[]; roles?: string[]; botRoles?: string[] }): FakeGuild;
  addChannel(guildId: string, name: string): string;
  /** 11 public thread (default), 12 private thread, 10 announcement thread. */
  addThread(parentId: string, name: string, type?: 10 | 11 | 12): string;
  dmChannelId(user: FakeUser): string;
  postDm(author: FakeUser, content: string, options?: PostOptions): PostedMessage;
  postMessage(channelId: string, author: FakeUser, content: string, options?: PostOptions): PostedMessage;
  mention(user: FakeUser): string;
  mentionRole(roleId: string): string;
  sentTo(channelId: string): SentMessage[];
  /** Resolves with the first truthy value of `check`, re-checked whenever the fake's state changes. */
  waitFor<T>(check: () => T | undefined | null | false, what: string, timeoutMs?: number): Promise<T>;
  waitForSent(count: number, where?: (message: SentMessage) => boolean): Promise<SentMessage[]>;
  /** `GET /gateway/bot` requests so far: one per login attempt. */
  readonly discoveries: number;
  dropConnection(options?: DropOptions): void;
  /**
   * Closes every gateway websocket with `code` (default 4000, which a client resumes after; 1006 kills the connection
   * without a close frame; 4004 or 4014 are closes discord.js does not retry).
   */
  dropConnections(code?: number): void;
  /** Until `acceptLogins`, IDENTIFY and RESUME are closed with `code` (default 4004 Authentication failed; 4014 disallowed intents). */
  refuseLogins(code?: number): void;
  acceptLogins(): void;
  /** Until `restoreGatewayDiscovery`, `GET /gateway/bot` fails with `status` (default 401, a rejected token). */
  failGatewayDiscovery(status?: number): void;
  restoreGatewayDiscovery(): void;
  refuseNextResume(): void;
  /**
   * Sends a raw gateway event (a replayed or malformed MESSAGE_CREATE, an event type no client knows) to the session,
   * with the next sequence number, as Discord would; nothing is checked or stored.
   */
  dispatch(event: string, data: Json): void;
  /** Accept gateway connections but send no HELLO until `releaseHello` (a stuck gateway). */
  holdHello(): void;
  releaseHello(): void;
  /** The next message sends fail this way, in order (`lateAnswer` creates the message but answers late). */
  failNextSend(...failures: SendFailure[]): void;
  /** The next message edits (`PATCH /channels/{id}/messages/{id}`) fail this way, in order. */
  failNextEdit(...failures: Exclude<SendFailure, { kind: "lateAnswer" }>[]): void;
  /** Every application command list the bot registered (`PUT /applications/{id}/commands`). */
  readonly commandSets: Json[][];
  /** Slash commands typed so far, with the bot's callbacks and replies to each. */
  readonly interactions: FakeInteraction[];
  /** `user` types `/<name> [args]` in `channelId` (default: their DM with the bot): an INTERACTION_CREATE. */
  runSlashCommand(user: FakeUser, name: string, options?: { channelId?: string; args?: string }): FakeInteraction;
  /**
   * `user` presses the button `customId` under the bot's message `messageId`: an INTERACTION_CREATE of type 3
   * (MESSAGE_COMPONENT) carrying the message as it is now. Throws when the message has no such button.
   */
  pressButton(user: FakeUser, messageId: string, customId: string): FakeInteraction;
  /** The next call to this interaction route fails with `status`. */
  failNextInteractionCall(route: InteractionRoute, status: number): void;
  close(): Promise<void>;
}

export async function startDiscordFake(options: DiscordFakeOptions = {}): Promise<DiscordFake> {
  const token = options.token ?? "fake-discord-token";
  const waiters = new Set<() => void>();
  const changed = (): void => {
    for (const waiter of [...waiters]) waiter();
  };
  let baseUrl = "";
  const records: RestRecords = { sent: [], typing: [], unknownRoutes: [], sendFailures: [], editFailures: [], nonceReplays: [], nonces: new Map(), discoveryFailure: undefined, discoveries: 0 };
  const interactions = newInteractionRecords();
  let gateway: FakeGateway | undefined;
  const nextId = snowflakeGenerator();
  const world = new FakeWorld(
    { nextId, now: Date.now, baseUrl: () => baseUrl, dispatch: (event, data) => gateway?.dispatch(event, data) },
    options.botName ?? "hermes",
  );
  const wsUrl = (): string => baseUrl.replace(/^http/, "ws");
  const liveGateway = new FakeGateway({
    token,
    botId: world.bot.id,
    wsUrl,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? 1_000,
    readyUser: () => ({ ...userPayload(world.bot), verified: true, mfa_enabled: false, flags: 0 }),
    guildIds: () => [...world.guilds.keys()],
    guildCreate: (id) => world.guildCreatePayload(id),
    onChange: changed,
  });
  gateway = liveGateway;

  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => handleRest(req, res, Buffer.concat(chunks).toString("utf8"), { world, token, wsUrl, records, interactions, onChange: changed }));
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on("upgrade", (request, socket, head) => {
    wss.handleUpgrade(request, socket, head, (ws) => liveGateway.accept(ws, request));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const post = (channelId: string, author: FakeUser, content: string, postOptions?: PostOptions): PostedMessage => {
    const payload = world.createMessage(channelId, author, content, postOptions);
    changed();
    return { id: payload.id as string, channelId, payload };
  };
  const waitFor = <T>(check: () => T | undefined | null | false, what: string, timeoutMs = 10_000): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const finish = (): void => {
        clearTimeout(timer);
        waiters.delete(attempt);
      };
      const attempt = (): void => {
        const value = check();
        if (value === undefined || value === null || value === false) return;
        finish();
        resolve(value);
      };
      const timer = setTimeout(() => {
        finish();
        const sent = records.sent.map((m) => `${m.channelId}: ${m.content.slice(0, 80)}`).join("\n  ");
        reject(new Error(`discord fake: timed out waiting for ${what}; the bot sent:\n  ${sent || "(nothing)"}`));
      }, timeoutMs);
      waiters.add(attempt);
      attempt();
    });
  let closing: Promise<void> | undefined;

  return {
    apiUrl: `${baseUrl}/api`,
    wsUrl: wsUrl(),
    token,
    bot: world.bot,
    sent: records.sent,
    typing: records.typing,
    unknownRoutes: records.unknownRoutes,
    nonceReplays: records.nonceReplays,
    gateway: liveGateway.stats,
    get connected() {
      return liveGateway.connected;
    },
    addUser: (username, userOptions) => world.addUser(username, userOptions),
    addGuild: (guildOptions) => world.addGuild(guildOptions),
    addChannel: (guildId, name) => world.addChannel(guildId, name),
    addThread: (parentId, name, type) => world.addThread(parentId, name, type),
    dmChannelId: (user) => world.dmChannelFor(user).id,
    postDm: (author, content, postOptions) => post(world.dmChannelFor(author).id, author, content, postOptions),
    postMessage: post,
    mention: (user) => `<@${user.id}>`,
    mentionRole: (roleId) => `<@&${roleId}>`,
    sentTo: (channelId) => records.sent.filter((m) => m.channelId === channelId),
    waitFor,
    waitForSent: (count, where = () => true) => {
      const matching = (): SentMessage[] | undefined => {
        const found = records.sent.filter(where);
        return found.length >= count ? found : undefined;
      };
      return waitFor(matching, `${count} sent message(s)`);
    },
    get discoveries() {
      return records.discoveries;
    },
    dropConnection: (dropOptions) => liveGateway.drop(dropOptions),
    dropConnections: (code = 4000) => liveGateway.dropAll(code),
    refuseLogins: (code = 4004) => liveGateway.refuseLogins(code),
    acceptLogins: () => liveGateway.acceptLogins(),
    failGatewayDiscovery: (status = 401) => {
      records.discoveryFailure = status;
    },
    restoreGatewayDiscovery: () => {
      records.discoveryFailure = undefined;
    },
    refuseNextResume: () => liveGateway.refuseNextResume(),
    dispatch: (event, data) => {
      liveGateway.dispatch(event, data);
      changed();
    },
    holdHello: () => liveGateway.holdHello(),
    releaseHello: () => liveGateway.releaseHello(),
    failNextSend: (...failures) => void records.sendFailures.push(...failures),
    failNextEdit: (...failures) => void records.editFailures.push(...failures),
    commandSets: interactions.commandSets,
    interactions: interactions.interactions,
    runSlashCommand: (user, name, slashOptions = {}) => {
      const channelId = slashOptions.channelId ?? world.dmChannelFor(user).id;
      const ids = { interactionId: nextId(), commandId: nextId() };
      const payload = slashCommandPayload(world, ids, user, channelId, name, slashOptions.args);
      const interaction: FakeInteraction = { id: ids.interactionId, token: payload.token as string, channelId, name, callbacks: [], replies: [] };
      interactions.interactions.push(interaction);
      liveGateway.dispatch("INTERACTION_CREATE", payload);
      changed();
      return interaction;
    },
    pressButton: (user, messageId, customId) => {
      const id = nextId();
      const payload = buttonPressPayload(world, id, user, messageId, customId);
      const interaction: FakeInteraction = { id, token: payload.token as string, channelId: payload.channel_id as string, name: customId, messageId, callbacks: [], replies: [] };
      interactions.interactions.push(interaction);
      liveGateway.dispatch("INTERACTION_CREATE", payload);
      changed();
      return interaction;
    },
    failNextInteractionCall: (route, status) => void interactions.failures.push({ route, status }),
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        liveGateway.close();
        wss.close();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}
