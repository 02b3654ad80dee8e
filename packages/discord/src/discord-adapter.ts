import { Client, cleanContent, Events, GatewayIntentBits, Partials, REST, Routes, type Message } from "discord.js";
import type { Logger } from "@hermes/agent";
import {
  abortableSleep,
  type AbortableSleep,
  type AdapterContext,
  type DiscordSettings,
  type InboundMessage,
  type OutboundMessage,
  type OutboundTarget,
  type PlatformAdapter,
  type SendResult,
} from "@hermes/gateway";
import { isTrustedAttachmentUrl } from "./attachment-kind.js";
import { acceptButtonPresses } from "./button-intake.js";
import { componentsOf } from "./buttons.js";
import { logClientWarnings, logRateLimits } from "./connection-log.js";
import { downloadAttachments } from "./download-attachments.js";
import { editChannelMessage, isEditRequest } from "./edit-message.js";
import { mayFetchFiles } from "./file-gate.js";
import { GatewayConnection } from "./gateway-connection.js";
import { DISCORD_PLATFORM, normalizeMessage } from "./normalize.js";
import { outboundMessageBody } from "./outbound-body.js";
import { PendingInteractions } from "./pending-interactions.js";
import { guardPacketHandling } from "./packet-guard.js";
import { receiveWithRetry } from "./receive-with-retry.js";
import { DEFAULT_RECONNECT_BACKOFF, type ReconnectBackoff } from "./reconnect-backoff.js";
import { RecentIds } from "./recent-ids.js";
import { idempotentNonce, ReplyNonces } from "./reply-nonce.js";
import { restBaseFrom } from "./rest-base.js";
import { sendFailure } from "./send-failure.js";
import { SerialLanes } from "./serial-lanes.js";
import { channelTargetOf, interactionIdOf } from "./slash-commands.js";
import { acceptSlashCommands, registerSlashCommandsOnReady } from "./slash-intake.js";
import { viewOfMessage } from "./view-of-message.js";

export interface DiscordAdapterDeps {
  logger: Logger;
  /** Where downloaded attachments are saved (inside the agent's workspace). */
  attachmentsDir: string;
  /** Larger attachments are not downloaded (default 20 MB). */
  maxAttachmentBytes?: number;
  /** Not needed on Discord, which addresses the bot by its user id; accepted like every adapter's deps. */
  botName?: string;
  /** For messages whose id carries no usable timestamp. */
  now?: () => number;
  /** Downloads attachments (default: the global fetch). */
  fetch?: typeof fetch;
  /**
   * How long `start` waits for the gateway session (default 3 s). It returns sooner when the first attempt fails; either
   * way the connection keeps trying in the background and reports its state through `reportStatus`.
   */
  connectTimeoutMs?: number;
  /** Pauses between fresh logins after discord.js gave up on a connection (default 1 s doubling up to 60 s). */
  reconnectBackoff?: Partial<ReconnectBackoff>;
  /** How long a send waits for Discord's answer before it counts as a (retryable) failure (default 15 s). */
  restTimeoutMs?: number;
  /** The pause between attempts to hand a message to the gateway; must return early when `signal` aborts. */
  sleep?: AbortableSleep;
}

/** Discord refuses longer messages; the gateway chunks to this. */
export const DISCORD_TEXT_LIMIT = 2000;
export const DEFAULT_MAX_ATTACHMENT_BYTES = 20 * 1024 * 1024;
const DEFAULT_CONNECT_TIMEOUT_MS = 3_000;
const DEFAULT_REST_TIMEOUT_MS = 15_000;
export const LOST_MESSAGE_NOTICE = "I couldn't take that message — please send it again.";
/** Message Content is privileged: it has to be switched on for the bot in the developer portal. */
export const DISCORD_INTENTS = [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.DirectMessages, GatewayIntentBits.MessageContent];

/** Chats with the bot on Discord: DMs, guild channels and threads, through the gateway websocket and the REST API. */
export function createDiscordAdapter(settings: DiscordSettings, deps: DiscordAdapterDeps): PlatformAdapter {
  return new DiscordAdapter(settings, deps);
}

class DiscordAdapter implements PlatformAdapter {
  readonly platform = DISCORD_PLATFORM;
  readonly textLimit = DISCORD_TEXT_LIMIT;
  /** Every send carries an enforced nonce, so a resend after a lost answer returns the message Discord already made. */
  readonly deliveryGuarantee = "exactly-once";
  private readonly restBase: string;
  /** Sends go through their own REST client so replies still flow while the gateway connection is down or stopped. */
  private readonly rest: REST;
  private readonly logger: Logger;
  private readonly lanes = new SerialLanes();
  private readonly sentIds = new RecentIds();
  private readonly nonces = new ReplyNonces();
  private readonly interactions: PendingInteractions;
  private connection: GatewayConnection | undefined;
  private accepting = false;
  /** Aborted by `stop`, so messages still being retried give up instead of holding shutdown. */
  private stopping = new AbortController();

  constructor(
    private readonly settings: DiscordSettings,
    private readonly deps: DiscordAdapterDeps,
  ) {
    this.restBase = restBaseFrom(settings.apiUrl);
    this.logger = deps.logger.child({ platform: DISCORD_PLATFORM });
    this.interactions = new PendingInteractions(deps.now ?? Date.now);
    // No retries of its own: the gateway's delivery retries with backoff; rate limits of sends are still waited out here.
    this.rest = new REST({
      api: this.restBase,
      retries: 0,
      timeout: deps.restTimeoutMs ?? DEFAULT_REST_TIMEOUT_MS,
      rejectOnRateLimit: isEditRequest,
    }).setToken(settings.token);
    logRateLimits(this.rest, this.logger);
  }

  async start(context: AdapterContext): Promise<void> {
    this.stopping = new AbortController();
    this.accepting = true;
    const connection = new GatewayConnection({
      token: this.settings.token,
      createClient: () => this.createClient(context),
      report: (status) => context.reportStatus(status),
      logger: this.logger,
      backoff: { ...DEFAULT_RECONNECT_BACKOFF, ...this.deps.reconnectBackoff },
      now: this.deps.now ?? Date.now,
    });
    this.connection = connection;
    const timeoutMs = this.deps.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    // The rest of the gateway (other platforms, the HTTP server) must not wait for Discord; the connection keeps trying.
    const outcome = await connection.start(timeoutMs);
    if (outcome === "waiting") this.logger.warn("Discord is not connected yet; still trying in the background", { waitedMs: timeoutMs });
  }

  async stop(): Promise<void> {
    this.accepting = false;
    this.stopping.abort();
    const connection = this.connection;
    this.connection = undefined;
    // Messages in hand finish over REST; the gateway connection has no part in that and stops reporting at once.
    await Promise.all([this.lanes.idle(), connection?.stop()]);
  }

  async send(target: OutboundTarget, message: OutboundMessage): Promise<SendResult> {
    const interactionId = interactionIdOf(target);
    if (interactionId === undefined) return this.sendToChannel(target, message);
    try {
      const id = await this.interactions.reply(interactionId, message.text, message.idempotencyKey, componentsOf(message.buttons));
      if (id !== undefined) {
        this.sentIds.add(id);
        return { ok: true, messageId: id };
      }
    } catch (error) {
      this.logger.warn("could not answer a Discord slash command through its interaction; replying in the channel", { interactionId, error });
    }
    // Expired (15 minutes), never acknowledged, or taken by another process: the reply is still owed, in the channel.
    return this.sendToChannel(channelTargetOf(target), message);
  }

  private async sendToChannel(target: OutboundTarget, message: OutboundMessage): Promise<SendResult> {
    const reply = { channelId: channelOf(target), text: message.text, ...(target.replyToMessageId ? { replyToMessageId: target.replyToMessageId } : {}) };
    try {
      const key = message.idempotencyKey;
      const nonce = key === undefined ? this.nonces.nonceFor(reply) : idempotentNonce(key, reply);
      const created: unknown = await this.rest.post(Routes.channelMessages(reply.channelId), {
        body: outboundMessageBody(message.text, target.replyToMessageId, nonce, message.buttons),
      });
      if (key === undefined) this.nonces.delivered(reply);
      const id = messageIdOf(created);
      if (id === undefined) return { ok: true };
      this.sentIds.add(id);
      return { ok: true, messageId: id };
    } catch (error) {
      return sendFailure(error);
    }
  }

  async edit(target: OutboundTarget, messageId: string, message: OutboundMessage): Promise<SendResult> {
    const interactionId = interactionIdOf(target);
    if (interactionId === undefined) return editChannelMessage(this.rest, channelOf(target), messageId, message);
    try {
      // A slash command's answers are the interaction's messages, editable (an ephemeral one only) through its token.
      if (await this.interactions.edit(interactionId, messageId, message.text, componentsOf(message.buttons))) return { ok: true, messageId };
    } catch (error) {
      this.logger.warn("could not edit a Discord slash command's answer through its interaction; editing it in the channel", { interactionId, error });
    }
    return editChannelMessage(this.rest, channelOf(channelTargetOf(target)), messageId, message);
  }

  async sendTyping(target: OutboundTarget): Promise<void> {
    // A deferred interaction already shows "thinking…"; its marker is no channel.
    if (interactionIdOf(target) !== undefined) return;
    await this.rest.post(Routes.channelTyping(channelOf(target)));
  }

  /** One per login: the connection replaces a client discord.js gave up on, and each one feeds the same lanes. */
  private createClient(context: AdapterContext): Client {
    const client = new Client({ rest: { api: this.restBase }, intents: DISCORD_INTENTS, partials: [Partials.Channel] });
    logClientWarnings(client, this.logger);
    guardPacketHandling(client, this.logger);
    registerSlashCommandsOnReady(client, this.logger);
    acceptSlashCommands(client, {
      logger: this.logger,
      pending: this.interactions,
      context: () => (this.accepting ? context : undefined),
      now: this.deps.now ?? Date.now,
      sleep: this.deps.sleep ?? abortableSleep,
      signal: () => this.stopping.signal,
    });
    acceptButtonPresses(client, {
      logger: this.logger,
      context: () => (this.accepting ? context : undefined),
      now: this.deps.now ?? Date.now,
      sleep: this.deps.sleep ?? abortableSleep,
      signal: () => this.stopping.signal,
    });
    client.on(Events.MessageCreate, (message) => {
      if (!this.accepting) return;
      this.lanes.run(message.channelId, () => this.handle(message, context, client)).catch((error: unknown) => {
        this.logger.error("could not handle a Discord message", { messageId: message.id, channelId: message.channelId, error: describeError(error) });
      });
    });
    return client;
  }

  private async handle(message: Message, context: AdapterContext, client: Client): Promise<void> {
    const botUserId = client.user?.id;
    // Cheap checks first: the bot's own echoes and other bots are most of the traffic in busy guilds.
    // discord.js leaves the author out when the event had none; such a message is nobody's.
    if (!botUserId || !message.author || message.author.bot || message.author.id === botUserId) return;
    const where = { messageId: message.id, channelId: message.channelId };
    let prepared: Prepared | undefined;
    try {
      prepared = await this.prepare(message, botUserId, context);
    } catch (error) {
      this.logger.error("could not read a Discord message", { ...where, error: describeError(error) });
      return;
    }
    if (!prepared) return;
    const { inbound, addressed } = prepared;
    const outcome = await receiveWithRetry(() => context.receive(inbound), {
      sleep: this.deps.sleep ?? abortableSleep,
      signal: this.stopping.signal,
      onRetry: (error, attempt) => {
        if (attempt === 1) this.logger.warn("the gateway could not save a Discord message; retrying", { ...where, error: describeError(error) });
      },
    });
    if (outcome.ok) return;
    this.logger.error("could not hand a Discord message to the gateway", {
      ...where,
      reason: outcome.reason,
      attempts: outcome.attempts,
      error: describeError(outcome.error),
    });
    // Unaddressed guild chatter would never have been answered; a notice there would only be noise.
    if (!addressed) return;
    const notice = await this.send({ chatId: message.channelId, replyToMessageId: message.id }, { text: LOST_MESSAGE_NOTICE, format: "plain" });
    if (!notice.ok) this.logger.error("could not tell the user their Discord message was lost", { ...where, error: notice.error });
  }

  private async prepare(message: Message, botUserId: string, context: AdapterContext): Promise<Prepared | undefined> {
    const view = await viewOfMessage(message, this.deps.now ?? Date.now);
    const normalized = normalizeMessage(view, {
      botUserId,
      sentByBot: (id) => this.sentIds.has(id),
      renderMentions: (text) => cleanContent(text, message.channel),
    });
    if (normalized.kind === "skip") {
      this.logger.debug("Discord message skipped", { messageId: message.id, reason: normalized.reason });
      return undefined;
    }
    // Files in messages the bot may ignore (unaddressed guild chatter, a stranger's) are listed but not fetched.
    const inbound = normalized.addressed && (await mayFetchFiles(normalized.message, context, this.logger))
      ? await downloadAttachments(normalized.message, {
          dir: this.deps.attachmentsDir,
          maxBytes: this.deps.maxAttachmentBytes ?? DEFAULT_MAX_ATTACHMENT_BYTES,
          fetch: this.deps.fetch ?? fetch,
          isTrusted: (url) => isTrustedAttachmentUrl(url, this.restBase),
          logger: this.logger,
        })
      : normalized.message;
    return { inbound, addressed: normalized.addressed };
  }
}

interface Prepared {
  inbound: InboundMessage;
  addressed: boolean;
}

/** A thread is its own channel on Discord: replies in a thread go to the thread, not its parent. */
function channelOf(target: OutboundTarget): string {
  return target.threadId ?? target.chatId;
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function messageIdOf(created: unknown): string | undefined {
  if (typeof created !== "object" || created === null || !("id" in created)) return undefined;
  return typeof created.id === "string" ? created.id : undefined;
}
