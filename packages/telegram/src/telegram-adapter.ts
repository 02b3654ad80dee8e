import type { Logger } from "@hermes/agent";
import { COMMANDS, type AdapterContext, type OutboundMessage, type OutboundTarget, type PlatformAdapter, type SendResult, type TelegramSettings } from "@hermes/gateway";
import { DEFAULT_MAX_ATTACHMENT_BYTES, type TelegramAdapterDeps } from "./adapter-deps.js";
import { describeApiFailure, type ApiFailure } from "./api-errors.js";
import { createBotApi, type BotApi } from "./bot-api.js";
import { abortableSleep, backoffMs } from "./backoff.js";
import type { BotIdentity } from "./bot-identity.js";
import { telegramCommands } from "./bot-commands.js";
import { downloadTelegramFile } from "./download-file.js";
import { markdownToTelegramHtml } from "./markdown-to-html.js";
import { TELEGRAM_PLATFORM } from "./normalize-update.js";
import { chatActionOptions, sendMessageOptions, telegramChatId } from "./outbound-params.js";
import { failedSend } from "./send-result.js";
import { createUpdateHandler, type UpdateHandler } from "./update-intake.js";
import { UpdatePoller, type UpdateKind } from "./update-poller.js";
import { createWebhookHandler, webhookRoutePath } from "./webhook-handler.js";

const ALLOWED_UPDATES: readonly UpdateKind[] = ["message", "channel_post"];

type Connected = "connected" | "retry" | "stopped";

/**
 * Telegram through grammY's Bot API client: long polling (or a webhook on the gateway's HTTP server) in, sendMessage
 * with Telegram HTML out, typing actions, and the command menu registered at start.
 */
export class TelegramAdapter implements PlatformAdapter {
  readonly platform = TELEGRAM_PLATFORM;
  readonly textLimit = 4096;
  private readonly api: BotApi;
  private readonly logger: Logger;
  private readonly lifetime = new AbortController();
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  private readonly random: () => number;
  private handler: UpdateHandler | undefined;
  private poller: UpdatePoller | undefined;
  private reconnecting: Promise<void> | undefined;

  constructor(
    private readonly settings: TelegramSettings,
    private readonly deps: TelegramAdapterDeps,
  ) {
    this.api = createBotApi(settings);
    this.logger = deps.logger.child({ platform: TELEGRAM_PLATFORM });
    this.sleep = deps.sleep ?? abortableSleep;
    this.random = deps.random ?? Math.random;
  }

  async start(context: AdapterContext): Promise<void> {
    const webhook = this.settings.webhook;
    if (webhook) {
      if (!context.route) throw new Error("TELEGRAM_WEBHOOK_URL is set, but the gateway runs without its HTTP server to receive the webhook");
      const path = webhookRoutePath(webhook.url);
      context.route("POST", path, createWebhookHandler({ secret: webhook.secret, handler: () => this.handler, logger: this.logger }));
    }
    if ((await this.connect(context)) === "retry") this.reconnecting = this.keepConnecting(context);
  }

  async stop(): Promise<void> {
    this.lifetime.abort();
    this.handler = undefined;
    await this.reconnecting;
    await this.poller?.stop();
  }

  async send(target: OutboundTarget, message: OutboundMessage): Promise<SendResult> {
    const options = sendMessageOptions(target, message.format);
    try {
      const sent = await this.api.sendMessage(telegramChatId(target.chatId), message.text, options);
      return { ok: true, messageId: String(sent.message_id) };
    } catch (error) {
      const failure = describeApiFailure(error);
      if (failure.kind === "rejected" && failure.migrateToChatId !== undefined) return this.sendToMigratedChat(failure.migrateToChatId, target, message);
      return failedSend(failure);
    }
  }

  async sendTyping(target: OutboundTarget): Promise<void> {
    await this.api.sendChatAction(telegramChatId(target.chatId), chatActionOptions(target));
  }

  formatMarkdown(markdown: string): string {
    return markdownToTelegramHtml(markdown);
  }

  /** A group that became a supergroup has a new id; the answer goes there. */
  private async sendToMigratedChat(chatId: number, target: OutboundTarget, message: OutboundMessage): Promise<SendResult> {
    this.logger.info("Telegram group was upgraded to a supergroup; sending to its new id", { from: target.chatId, to: chatId });
    try {
      const sent = await this.api.sendMessage(chatId, message.text, sendMessageOptions({ chatId: String(chatId) }, message.format));
      return { ok: true, messageId: String(sent.message_id) };
    } catch (error) {
      return failedSend(describeApiFailure(error));
    }
  }

  /**
   * One attempt to get going: who the bot is, its command menu, then the webhook or polling. A refused token or
   * webhook throws (the operator must fix the settings); a network problem answers "retry".
   */
  private async connect(context: AdapterContext): Promise<Connected> {
    const signal = this.lifetime.signal;
    let bot: BotIdentity;
    try {
      const me = await this.api.getMe(signal);
      bot = { id: me.id, username: me.username };
      await this.registerCommands(signal);
      if (this.settings.webhook) {
        await this.api.setWebhook(this.settings.webhook.url, { secret_token: this.settings.webhook.secret, allowed_updates: ALLOWED_UPDATES }, signal);
      } else {
        // A webhook left from an earlier deployment would make every getUpdates fail with 409.
        await this.api.deleteWebhook(signal);
      }
    } catch (error) {
      if (signal.aborted) return "stopped";
      return this.connectFailed(describeApiFailure(error));
    }
    this.handler = createUpdateHandler({
      bot,
      gatewayName: this.deps.botName,
      receive: (message) => context.receive(message),
      attachmentsDir: this.deps.attachmentsDir,
      maxAttachmentBytes: this.deps.maxAttachmentBytes ?? DEFAULT_MAX_ATTACHMENT_BYTES,
      download: (fileId, destination, downloadSignal) =>
        downloadTelegramFile(fileId, destination, {
          api: this.api,
          fileUrl: (filePath) => this.api.fileUrl(filePath),
          fetch: this.deps.fetch ?? fetch,
          maxBytes: this.deps.maxAttachmentBytes ?? DEFAULT_MAX_ATTACHMENT_BYTES,
          signal: downloadSignal,
        }),
      logger: this.logger,
    });
    if (!this.settings.webhook) this.startPolling(this.handler);
    this.logger.info("connected to Telegram", { bot: bot.username, mode: this.settings.webhook ? "webhook" : "long polling" });
    return "connected";
  }

  private connectFailed(failure: ApiFailure): Connected {
    if (failure.kind === "unauthorized") throw new Error(`Telegram refused the bot token (${failure.message}); check TELEGRAM_BOT_TOKEN`);
    if (failure.kind === "rejected" || failure.kind === "conflict") throw new Error(`Telegram refused to set up the bot: ${failure.message}`);
    this.logger.warn("cannot reach Telegram yet; retrying in the background", { error: failure.message });
    return "retry";
  }

  private async keepConnecting(context: AdapterContext): Promise<void> {
    for (let attempt = 0; !this.lifetime.signal.aborted; attempt += 1) {
      await this.sleep(backoffMs(attempt, this.random), this.lifetime.signal);
      if (this.lifetime.signal.aborted) return;
      try {
        if ((await this.connect(context)) !== "retry") return;
      } catch (error) {
        this.logger.error("Telegram adapter gave up connecting", { error: error instanceof Error ? error.message : String(error) });
        return;
      }
    }
  }

  private async registerCommands(signal: AbortSignal): Promise<void> {
    try {
      await this.api.setMyCommands(telegramCommands(COMMANDS), signal);
    } catch (error) {
      if (signal.aborted) throw error;
      // The menu is a convenience; commands work without it.
      this.logger.warn("could not register the bot's command menu", { error: describeApiFailure(error).message });
    }
  }

  private startPolling(handler: UpdateHandler): void {
    const poller = new UpdatePoller({
      api: this.api,
      handle: handler,
      logger: this.logger,
      allowedUpdates: ALLOWED_UPDATES,
      timeoutSeconds: this.deps.pollTimeoutSeconds,
      sleep: this.sleep,
      random: this.random,
    });
    this.poller = poller;
    void poller.start();
  }
}

export function createTelegramAdapter(settings: TelegramSettings, deps: TelegramAdapterDeps): TelegramAdapter {
  return new TelegramAdapter(settings, deps);
}
