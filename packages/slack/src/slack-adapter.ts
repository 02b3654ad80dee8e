import { App, webApi, type Logger as BoltLogger, type Receiver } from "@slack/bolt";
import type { Logger } from "@hermes/agent";
import type { AdapterContext, InboundMessage, OutboundMessage, OutboundTarget, PlatformAdapter, SendResult, SlackSettings } from "@hermes/gateway";
import { identifyBotUntilAccepted } from "./bot-identity.js";
import { acceptInteraction, interactionAnswer, interactivityRoute, SLACK_INTERACTIVITY_PATH, type InteractivityIntakeOptions } from "./interactivity-route.js";
import { isSlackTs, postSlackMessage, updateSlackMessage } from "./message-posting.js";
import { BotThreads } from "./bot-threads.js";
import { boltLoggerFor } from "./bolt-logger.js";
import { ConnectionStatus } from "./connection-status.js";
import { SlackEventIntake } from "./event-intake.js";
import { SlackHttpReceiver } from "./http-receiver.js";
import { markdownToMrkdwn, plainSlackText } from "./mrkdwn.js";
import { isAddressedToBot, SLACK_PLATFORM } from "./normalize.js";
import { SLACK_PACING } from "./pacing.js";
import type { RefusalReason } from "./request-signature.js";
import { DEFAULT_RETRY_POLICY, settlesWithin, type RetryPolicy } from "./retry-policy.js";
import { trustedFileOrigins, webApiUrlFor } from "./slack-api-url.js";
import { SlackSocketReceiver } from "./socket-mode-receiver.js";
import { slashInvocationOf } from "./slash-command.js";
import { acceptSlashCommand, SLACK_COMMANDS_PATH, SLASH_COMMAND_FAILED_TEXT, slashCommandRoute, type SlashCommandIntakeOptions } from "./slash-command-route.js";
import { PendingSlashReplies, postSlashReply } from "./slash-replies.js";
import { slackUserName, UserNames } from "./user-names.js";
import { BotTokenRecheck } from "./token-recheck.js";
import { WorkingReaction } from "./working-reaction.js";

export interface SlackAdapterDeps {
  logger: Logger;
  /** Where downloaded files are saved (inside the agent's workspace). */
  attachmentsDir: string;
  /** Largest file downloaded (default 20 MB). */
  maxAttachmentBytes?: number;
  botName?: string;
  now?: () => number;
  /** For file downloads (default: global fetch). */
  fetch?: typeof fetch;
  /** Called for each refused /slack/events request, e.g. to count it in the gateway's metrics. */
  onRequestRefused?: (reason: RefusalReason) => void;
  /** How long an HTTP event waits for its message to be persisted before Slack is answered anyway (default 2.5 s). */
  ackDeadlineMs?: number;
  /**
   * How long file downloads may take in all before the message is handed over without the rest (default 2 s), so
   * it is persisted before the HTTP acknowledgement deadline.
   */
  downloadBudgetMs?: number;
  /** How long a message waits for its sender's name on a cache miss before going on with the user id (default 1 s). */
  nameLookupWaitMs?: number;
  /**
   * How long start() waits for the first connection attempt (auth.test, and in Socket Mode the websocket) to succeed
   * or fail before letting it continue in the background (default 30 s).
   */
  startWaitMs?: number;
  /** Spacing of reconnect attempts (default 1 s doubling up to 60 s, with jitter). */
  retry?: Partial<RetryPolicy>;
}

/**
 * Slack's hard limit is 40,000 characters, but it recommends at most 4,000 per message, and Slack clients collapse
 * long messages behind "Show more". The gateway chunks Markdown before it is converted, and escaping and link syntax
 * make the converted text somewhat longer, so 3,500 keeps each message near the recommended size.
 */
export const SLACK_TEXT_LIMIT = 3_500;
export const DEFAULT_MAX_ATTACHMENT_BYTES = 20 * 1024 * 1024;
export const SLACK_EVENTS_PATH = "/slack/events";
const DEFAULT_DOWNLOAD_BUDGET_MS = 2_000;
const DEFAULT_NAME_LOOKUP_WAIT_MS = 1_000;
const DEFAULT_START_WAIT_MS = 30_000;

type RefusalCounts = Record<RefusalReason, number>;

export function createSlackAdapter(settings: SlackSettings, deps: SlackAdapterDeps): SlackAdapter {
  return new SlackAdapter(settings, deps);
}

/**
 * Slack as a chat platform, on Bolt: events over HTTP (on the gateway's server, `POST /slack/events`) with the
 * signing secret, or over Socket Mode with the app token; answers in threads, in Slack's mrkdwn. It never gives up
 * on Slack: a refused token or an unreachable Slack at start, a lost Socket Mode connection later, and a bot token
 * refused on a reply, are reported to the gateway (`retrying`, with the cause) and retried with capped backoff until
 * it works or the adapter stops.
 */
export class SlackAdapter implements PlatformAdapter {
  readonly platform = SLACK_PLATFORM;
  readonly textLimit = SLACK_TEXT_LIMIT;
  /** chat.postMessage takes no idempotency key: a resend after an ambiguous failure may show a message twice. */
  readonly deliveryGuarantee = "at-least-once";
  readonly pacing = SLACK_PACING;
  /** Socket Mode when an app token is configured (also when a signing secret is too), else HTTP events. */
  readonly mode: "http" | "socket";
  private app: App | undefined;
  private context: AdapterContext | undefined;
  private reaction: WorkingReaction | undefined;
  private tokenRecheck: BotTokenRecheck | undefined;
  private readonly refusals: RefusalCounts = { missing_signature: 0, stale_timestamp: 0, bad_signature: 0 };
  private readonly threads = new BotThreads();
  private readonly intake: SlackEventIntake;
  private readonly now: () => number;
  private readonly retry: RetryPolicy;
  private lifetime: AbortController | undefined;
  private status: ConnectionStatus | undefined;
  private readonly slashReplies: PendingSlashReplies;
  private names: UserNames | undefined;

  constructor(
    private readonly settings: SlackSettings,
    private readonly deps: SlackAdapterDeps,
  ) {
    this.mode = settings.appToken ? "socket" : "http";
    this.now = deps.now ?? Date.now;
    this.retry = { ...DEFAULT_RETRY_POLICY, ...deps.retry };
    this.slashReplies = new PendingSlashReplies(this.now);
    this.intake = new SlackEventIntake({
      logger: deps.logger,
      context: () => this.context,
      threads: this.threads,
      nameLookupWaitMs: deps.nameLookupWaitMs ?? DEFAULT_NAME_LOOKUP_WAIT_MS,
      files: {
        botToken: settings.botToken,
        directory: deps.attachmentsDir,
        maxBytes: deps.maxAttachmentBytes ?? DEFAULT_MAX_ATTACHMENT_BYTES,
        trustedOrigins: trustedFileOrigins(settings.apiUrl),
        fetch: deps.fetch ?? fetch,
        budgetMs: deps.downloadBudgetMs ?? DEFAULT_DOWNLOAD_BUDGET_MS,
      },
    });
  }

  /** Requests to /slack/events refused so far, by reason. */
  refusedRequests(): Readonly<RefusalCounts> {
    return { ...this.refusals };
  }

  /**
   * Resolves once the first attempt to connect has succeeded or failed (or after `startWaitMs`); a failure is retried
   * in the background. Only settings that can never work (HTTP events without a signing secret or without the
   * gateway's HTTP server) report `failed` and throw.
   */
  async start(context: AdapterContext): Promise<void> {
    const lifetime = new AbortController();
    const status = new ConnectionStatus((next) => context.reportStatus(next), this.deps.logger);
    this.lifetime = lifetime;
    this.status = status;
    this.context = context;
    status.connecting();
    const boltLogger = boltLoggerFor(this.deps.logger);
    const receiver = this.receiverFor(context, status, boltLogger);
    if (!receiver.ok) {
      status.failed(receiver.problem);
      status.close();
      throw new Error(receiver.problem);
    }
    let settleFirst: () => void = () => {};
    const firstAttempt = new Promise<void>((resolve) => {
      settleFirst = resolve;
    });
    // stop() during the first attempt (e.g. auth.test still under way) ends the wait too.
    lifetime.signal.addEventListener("abort", () => settleFirst(), { once: true });
    this.connect(receiver.receiver, { status, boltLogger, signal: lifetime.signal, settleFirst }).catch((error: unknown) => {
      // A bug, not Slack: nothing would retry it, so it is shown as failed.
      status.failed(`the Slack adapter could not be set up: ${error instanceof Error ? error.message : String(error)}`);
      settleFirst();
    });
    if (!(await settlesWithin(firstAttempt, this.deps.startWaitMs ?? DEFAULT_START_WAIT_MS))) {
      this.deps.logger.warn("slack is still connecting; the gateway goes on without waiting", { mode: this.mode });
    }
  }

  async stop(): Promise<void> {
    this.lifetime?.abort();
    this.status?.close();
    // The receiver stops taking requests first; one already past that finds no context and fails, so Slack
    // delivers it again instead of it being acknowledged and dropped.
    await this.app?.stop();
    this.context = undefined;
  }

  async send(target: OutboundTarget, message: OutboundMessage): Promise<SendResult> {
    const client = this.app?.client;
    if (!client) return { ok: false, retryable: true, error: "the Slack adapter is not running" };
    const invocation = slashInvocationOf(target.threadId) ?? slashInvocationOf(target.replyToMessageId);
    if (invocation !== undefined) {
      const plain = message.format === "plain";
      return this.sendSlashReply(invocation, target.chatId, plain ? plainSlackText(message.text) : message.text, !plain);
    }
    return postSlackMessage(client, target, message, (chatId, ts) => this.threads.remember(chatId, ts), (error) => this.tokenRecheck?.notice(error));
  }

  async edit(target: OutboundTarget, messageId: string, message: OutboundMessage): Promise<SendResult> {
    const client = this.app?.client;
    if (!client) return { ok: false, retryable: true, error: "the Slack adapter is not running" };
    return updateSlackMessage(client, target, messageId, message, (error) => this.tokenRecheck?.notice(error));
  }

  async markDone(message: InboundMessage): Promise<void> {
    // A press carries no message of the person's own to take a reaction off.
    if (message.platform !== SLACK_PLATFORM || !isAddressedToBot(message) || message.action || slashInvocationOf(message.messageId) !== undefined) return;
    const ts = message.replyToId ?? message.messageId.slice(message.messageId.lastIndexOf(":") + 1);
    // A scheduled task's run answers no Slack message of the person's: there is no reaction to take off.
    if (!isSlackTs(ts)) return;
    await this.reaction?.remove(message.chat.id, ts);
  }

  /**
   * A slash command's reply goes to its response_url, seen only by the invoker. Without one (delivered by another
   * process, or after a restart) a DM's reply is posted in the DM, which only the invoker sees anyway; a channel's is
   * dropped rather than shown to the whole channel.
   */
  private async sendSlashReply(invocation: string, chatId: string, text: string, mrkdwn: boolean): Promise<SendResult> {
    const url = this.slashReplies.urlFor(invocation);
    if (url !== undefined) return postSlashReply(this.deps.fetch ?? fetch, url, text, mrkdwn);
    if (chatId.startsWith("D")) return this.send({ chatId }, { text, format: mrkdwn ? "markdown" : "plain" });
    return { ok: false, retryable: false, error: "the slash command's response_url is not known here (expired, or taken by another process)" };
  }

  private slashIntake(): SlashCommandIntakeOptions {
    return { apiUrl: this.settings.apiUrl, logger: this.deps.logger, now: this.now, pending: this.slashReplies, context: () => this.context, ackDeadlineMs: this.deps.ackDeadlineMs ?? 2_500 };
  }

  private interactivityIntake(): InteractivityIntakeOptions {
    return { logger: this.deps.logger, now: this.now, context: () => this.context, names: () => this.names, nameLookupWaitMs: this.deps.nameLookupWaitMs ?? DEFAULT_NAME_LOOKUP_WAIT_MS, ackDeadlineMs: this.deps.ackDeadlineMs ?? 2_500 };
  }

  formatMarkdown(markdown: string): string {
    return markdownToMrkdwn(markdown);
  }

  /** Learns the bot's identity (retrying until Slack accepts the token), then builds the Bolt app and starts it. */
  private async connect(receiver: Receiver, run: { status: ConnectionStatus; boltLogger: BoltLogger; signal: AbortSignal; settleFirst: () => void }): Promise<void> {
    const clientOptions = { slackApiUrl: webApiUrlFor(this.settings.apiUrl), retryConfig: { retries: 0 }, rejectRateLimitedCalls: true, timeout: 30_000 };
    const identifying = new webApi.WebClient(this.settings.botToken, { ...clientOptions, logger: run.boltLogger });
    const bot = await identifyBotUntilAccepted(identifying, { ...run, retry: this.retry, now: this.now, onFailure: run.settleFirst });
    // Also when stop() came while auth.test was answered: no connection may be opened after stop.
    if (!bot || run.signal.aborted) return;
    const app = new App({
      token: this.settings.botToken,
      botId: bot.botId,
      botUserId: bot.userId,
      receiver,
      logger: run.boltLogger,
      clientOptions: { ...clientOptions },
      convoStore: false,
    });
    this.tokenRecheck = new BotTokenRecheck({ client: app.client, status: run.status, retry: this.retry, now: this.now, signal: run.signal });
    this.reaction = new WorkingReaction(app.client, this.deps.logger, (error) => this.tokenRecheck?.notice(error));
    const names = new UserNames({ lookup: (user) => slackUserName(app.client, user), logger: this.deps.logger, now: this.now });
    this.names = names;
    this.intake.listen(app, { bot: { userId: bot.userId, name: this.deps.botName ?? bot.name }, names, reaction: this.reaction });
    this.app = app;
    // Socket Mode reports its own state from here on (it resolves after its first attempt).
    await app.start();
    if (this.mode === "http") run.status.connected({ mode: "http", botUserId: bot.userId });
    run.settleFirst();
  }

  private receiverFor(context: AdapterContext, status: ConnectionStatus, boltLogger: BoltLogger): { ok: true; receiver: Receiver } | { ok: false; problem: string } {
    const { appToken, signingSecret } = this.settings;
    if (appToken) {
      if (signingSecret) this.deps.logger.info("slack: SLACK_APP_TOKEN is set, so events come over Socket Mode; SLACK_SIGNING_SECRET is not used");
      const onSlashCommand = async (payload: Record<string, unknown>): Promise<Record<string, unknown> | undefined> => {
        const outcome = await acceptSlashCommand(payload, this.slashIntake());
        return outcome.kind === "accepted" ? undefined : { response_type: "ephemeral", text: SLASH_COMMAND_FAILED_TEXT };
      };
      const onInteraction = async (payload: Record<string, unknown>): Promise<void> => void (await acceptInteraction(payload, this.interactivityIntake()));
      const receiver = new SlackSocketReceiver({ appToken, apiUrl: this.settings.apiUrl, logger: this.deps.logger, boltLogger, status, retry: this.retry, now: this.now, onSlashCommand, onInteraction });
      return { ok: true, receiver };
    }
    if (!signingSecret) return { ok: false, problem: "Slack needs SLACK_SIGNING_SECRET (HTTP events) or SLACK_APP_TOKEN (Socket Mode)" };
    if (!context.route) return { ok: false, problem: "Slack HTTP events need the gateway's HTTP server (POST /slack/events); use SLACK_APP_TOKEN for Socket Mode instead" };
    const onRefused = (reason: RefusalReason): void => {
      this.refusals[reason] += 1;
      this.deps.onRequestRefused?.(reason);
    };
    const receiver = new SlackHttpReceiver({
      signingSecret,
      logger: this.deps.logger,
      now: this.now,
      ackDeadlineMs: this.deps.ackDeadlineMs,
      onRefused,
      onInteraction: async (payload) => interactionAnswer(await acceptInteraction(payload, this.interactivityIntake())),
    });
    // Registered at once: until Slack accepts the bot token, events are answered 503 and Slack delivers them again.
    context.route("POST", SLACK_EVENTS_PATH, receiver.handle);
    context.route("POST", SLACK_COMMANDS_PATH, slashCommandRoute({ ...this.slashIntake(), signingSecret, onRefused }));
    context.route("POST", SLACK_INTERACTIVITY_PATH, interactivityRoute({ ...this.interactivityIntake(), signingSecret, onRefused }));
    return { ok: true, receiver };
  }
}
