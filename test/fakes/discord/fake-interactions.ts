import type { FakeWorld } from "./fake-world.js";
import { channelPayload, memberPayload, userPayload, type FakeUser, type Json } from "./payloads.js";

/** A chat-input command or a button press the fake dispatched, and what the bot answered to it. */
export interface FakeInteraction {
  id: string;
  token: string;
  channelId: string;
  /** A slash command's name, or a pressed button's `custom_id`. */
  name: string;
  /** For a button press: the bot message the button is under. */
  messageId?: string;
  /** The interaction callback types the bot sent (5 = deferred channel message, 6 = deferred update of a press). */
  callbacks: { type: number; flags: number }[];
  /** Edits of the original response (the first one makes it) or of a message by id, and follow-ups, in order. */
  replies: InteractionReply[];
}

export interface InteractionReply {
  kind: "edit" | "followUp";
  content: string;
  flags: number;
  /** The message the reply made or changed. */
  messageId: string;
  components: Json[];
}

export type InteractionRoute = "commands" | "callback" | "edit" | "followUp";

export interface InteractionRecords {
  /** Every `PUT /applications/{id}/commands` body. */
  commandSets: Json[][];
  interactions: FakeInteraction[];
  /** The next calls to a route fail with this status, in order. */
  failures: { route: InteractionRoute; status: number }[];
}

export function newInteractionRecords(): InteractionRecords {
  return { commandSets: [], interactions: [], failures: [] };
}

/** The INTERACTION_CREATE payload of a slash command typed by `user` in `channelId` (a DM or a guild channel). */
export function slashCommandPayload(world: FakeWorld, ids: { interactionId: string; commandId: string }, user: FakeUser, channelId: string, name: string, args?: string): Json {
  return {
    ...interactionBase(world, ids.interactionId, user, channelId),
    type: 2,
    data: { id: ids.commandId, name, type: 1, ...(args === undefined ? {} : { options: [{ name: "args", type: 3, value: args }] }) },
  };
}

/**
 * The INTERACTION_CREATE payload (type 3, MESSAGE_COMPONENT) of `user` pressing the button `customId` under the bot's
 * message `messageId`; throws when that message has no such button, which Discord could never deliver.
 */
export function buttonPressPayload(world: FakeWorld, interactionId: string, user: FakeUser, messageId: string, customId: string): Json {
  const message = world.messages.get(messageId);
  if (!message) throw new Error(`discord fake: no message ${messageId} to press a button on`);
  const buttons = ((message.components as Json[] | undefined) ?? []).flatMap((row) => (row.components as Json[] | undefined) ?? []);
  if (!buttons.some((button) => button.type === 2 && button.custom_id === customId)) {
    throw new Error(`discord fake: message ${messageId} has no button ${customId} (it has ${buttons.map((b) => String(b.custom_id)).join(", ") || "none"})`);
  }
  return {
    ...interactionBase(world, interactionId, user, message.channel_id as string),
    type: 3,
    data: { custom_id: customId, component_type: 2 },
    message,
  };
}

function interactionBase(world: FakeWorld, interactionId: string, user: FakeUser, channelId: string): Json {
  const channel = world.requireChannel(channelId);
  const now = new Date().toISOString();
  const guildId = channel.guildId;
  return {
    id: interactionId,
    application_id: world.bot.id,
    token: `interaction-token-${interactionId}`,
    version: 1,
    channel_id: channelId,
    channel: channelPayload(channel, now),
    app_permissions: "0",
    locale: "en-US",
    entitlements: [],
    authorizing_integration_owners: { "0": guildId ?? user.id },
    context: guildId ? 0 : 1,
    ...(guildId ? { guild_id: guildId, guild_locale: "en-US", member: { ...memberPayload(user, [], now), permissions: "0" } } : { user: userPayload(user) }),
  };
}

/**
 * The interaction routes: command registration (bot-authenticated), and the callback / original-response / follow-up
 * routes, which Discord authenticates by the interaction token in the path. Returns false for any other route.
 */
export function handleInteractionRoute(method: string, route: string, rawBody: string, authorized: boolean, world: FakeWorld, records: InteractionRecords, answer: (status: number, body: unknown) => void): boolean {
  let match: RegExpExecArray | null;
  const parsedBody = (): unknown => {
    try {
      return JSON.parse(rawBody) as unknown;
    } catch {
      return undefined;
    }
  };
  const body = (): Json => {
    const value = parsedBody();
    return typeof value === "object" && value !== null ? (value as Json) : {};
  };
  const failure = (name: InteractionRoute): boolean => {
    const index = records.failures.findIndex((f) => f.route === name);
    if (index === -1) return false;
    const [{ status }] = records.failures.splice(index, 1) as [{ route: InteractionRoute; status: number }];
    answer(status, { message: `fake failure ${status}`, code: 0 });
    return true;
  };
  if ((match = /^\/applications\/(\d+)\/commands$/.exec(route)) && method === "PUT") {
    if (!authorized) return (answer(401, { message: "401: Unauthorized", code: 0 }), true);
    if (failure("commands")) return true;
    const value = parsedBody();
    if (!Array.isArray(value)) return (answer(400, { message: "400: Bad Request", code: 0 }), true);
    const commands = value as Json[];
    records.commandSets.push(commands);
    answer(200, commands.map((command, i) => ({ id: `${match?.[1] ?? ""}${i}`, application_id: match?.[1], version: "1", type: 1, default_member_permissions: null, ...command })));
    return true;
  }
  const interactionBy = (token: string): FakeInteraction | undefined => records.interactions.find((i) => i.token === token);
  if ((match = /^\/interactions\/(\d+)\/([^/]+)\/callback$/.exec(route)) && method === "POST") {
    const interaction = interactionBy(match[2] ?? "");
    if (!interaction || interaction.id !== match[1]) return (answer(404, { message: "Unknown interaction", code: 10062 }), true);
    if (failure("callback")) return true;
    if (interaction.callbacks.length > 0) return (answer(400, { message: "Interaction has already been acknowledged.", code: 40060 }), true);
    const parsed = body();
    interaction.callbacks.push({ type: Number(parsed.type), flags: Number((parsed.data as Json | undefined)?.flags ?? 0) });
    answer(204, undefined);
    return true;
  }
  const edited = /^\/webhooks\/(\d+)\/([^/]+)\/messages\/((?:@|%40)original|\d+)$/.exec(route);
  const followUp = /^\/webhooks\/(\d+)\/([^/]+)$/.exec(route);
  if ((edited && method === "PATCH") || (followUp && method === "POST")) {
    const interaction = interactionBy((edited ?? followUp)?.[2] ?? "");
    if (!interaction || interaction.callbacks.length === 0) return (answer(404, { message: "Unknown Webhook", code: 10015 }), true);
    const kind = edited ? "edit" : "followUp";
    if (failure(kind)) return true;
    const parsed = body();
    const content = typeof parsed.content === "string" ? parsed.content : "";
    const flags = Number(parsed.flags ?? interaction.callbacks[0]?.flags ?? 0);
    const components = Array.isArray(parsed.components) ? (parsed.components as Json[]) : [];
    const target = edited?.[3];
    const byId = target !== undefined && /^\d+$/.test(target) ? target : undefined;
    const existing = byId ?? (edited ? interaction.replies.find((r) => r.kind === "edit")?.messageId : undefined);
    if (byId !== undefined && !interaction.replies.some((r) => r.messageId === byId)) return (answer(404, { message: "Unknown Message", code: 10008 }), true);
    // The deferred "thinking…" message becomes the answer on the first edit; later edits change that message. New
    // messages are announced on the gateway like any of the bot's, which the adapter ignores.
    const message = existing === undefined ? world.createMessage(interaction.channelId, world.bot, content, { components }) : world.updateMessage(existing, { content, components });
    interaction.replies.push({ kind, content, flags, messageId: message.id as string, components });
    answer(200, { ...message, flags, webhook_id: world.bot.id, application_id: world.bot.id });
    return true;
  }
  return false;
}
