import type { Logger } from "@hermes/agent";
import type { InlineKeyboardMarkup } from "grammy/types";
import { abortableSleep, COMMANDS, type AdapterContext, type OutboundMessage, type OutboundTarget, type PlatformAdapter, type SendResult, type TelegramSettings } from "@hermes/gateway";
import { DEFAULT_MAX_ATTACHMENT_BYTES, type TelegramAdapterDeps } from "./adapter-deps.js";
import { describeApiFailure, type ApiFailure } from "./api-errors.js";
import { createBotApi, type BotApi } from "./bot-api.js";
import type { BotIdentity } from "./bot-identity.js";
import { commandMenus, registerCommandMenus } from "./command-menu.js";
import { ConnectionHealth } from "./connection-health.js";
import { downloadTelegramFile } from "./download-file.js";
import { inlineKeyboard } from "./inline-keyboard.js";
import { markdownToTelegramHtml } from "./markdown-to-html.js";
import { editTelegramMessage } from "./message-edit.js";
import { TELEGRAM_PLATFORM } from "./normalize-update.js";
import { chatActionOptions, sendMessageOptions, telegramChatId } from "./outbound-params.js";
import { failedSend } from "./send-result.js";
import { TELEGRAM_PACING } from "./pacing.js";
import { TELEGRAM_TEXT_LIMIT } from "./text-limit.js";
import { createUpdateHandler, type UpdateHandler } from "./update-intake.js";
import { UpdatePoller, type UpdateKind } from "./update-poller.js";
import { createWebhookHandler, webhookRoutePath } from "./webhook-handler.js";

const ALLOWED_UPDATES: readonly UpdateKind[] = ["message", "channel_post", "callback_query"];

/** How one attempt to set the bot up went (or a reply Telegram refused for the token, which starts set-up again). */
type ConnectOutcome = { kind: "connected" } | { kind: "stopped" } | { kind: "failed"; failure: ApiFailure; activity: string };

/**
 * Telegram through grammY's Bot API client: long polling (or a webhook on the gateway's HTTP server) in, sendMessage
 * with Telegram HTML and inline buttons out, edits, typing actions, and the command menus registered at start. Whatever Telegram answers (a
 * refused token, a 409 conflict, an outage), the adapter reports it through `reportStatus` and keeps retrying with
 * capped backoff until it is stopped; only a webhook without the gateway's HTTP server is reported as `failed`. A reply
 * refused for the token counts too: in webhook mode nothing else calls Telegram between messages.
 */
export class TelegramAdapter implements PlatformAdapter {
  readonly platform = TELEGRAM_PLATFORM;
  readonly textLimit = TELEGRAM_TEXT_LIMIT;
  /** The Bot API has no idempotency key: a resend after an ambiguous failure (a lost answer) may show a part twice. */
  readonly deliveryGuarantee = "at-least-once";
  readonly pacing = TELEGRAM_PACING;
  private readonly api: BotApi;
  private readonly logger: Logger;
  private readonly lifetime = new AbortController();
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  private readonly random: () => number;
  private readonly now: () => number;
  private handler: UpdateHandler | undefined;
  private poller: UpdatePoller | undefined;
  private connection: Promise<void> | undefined;
  /** While the set-up loop runs (at start, after a refused token), a refused reply starts no second one. */
  private settingUp = false;
  private restartSetUp: ((failure: ApiFailure) => void) | undefined;

  constructor(
    private readonly settings: TelegramSettings,
    private readonly deps: TelegramAdapterDeps,
  ) {
    this.api = createBotApi(settings);
    this.logger = deps.logger.child({ platform: TELEGRAM_PLATFORM });
    this.sleep = deps.sleep ?? abortableSleep;
    this.random = deps.random ?? Math.random;
    this.now = deps.now ?? Date.now;
  }

  /**
   * Makes the first attempt to set the bot up and returns; a failure is reported as `retrying` and retried in the
   * background. Throws only for a webhook without the gateway's HTTP server, which no retry can fix.
   */
  async start(context: AdapterContext): Promise<void> {
    const health = new ConnectionHealth({ report: (status) => context.reportStatus(status), logger: this.logger, now: this.now, random: this.random, signal: this.lifetime.signal });
    const webhook = this.settings.webhook;
    if (webhook) {
      if (!context.route) {
        const error = "TELEGRAM_WEBHOOK_URL is set, but the gateway runs without its HTTP server to receive the webhook";
        health.failedForGood(error);
        throw new Error(error);
      }
      const path = webhookRoutePath(webhook.url);
      context.route("POST", path, createWebhookHandler({ secret: webhook.secret, handler: () => this.handler, logger: this.logger }));
    } else {
      this.poller = this.createPoller(health);
    }
    health.connecting();
    const first = await this.connect(context, health);
    this.restartSetUp = (failure) => this.keepConnectedInBackground(context, health, { kind: "failed", failure, activity: "Telegram refused a reply" });
    this.keepConnectedInBackground(context, health, first);
  }

  async stop(): Promise<void> {
    this.lifetime.abort();
    const polling = this.poller?.stop();
    this.handler = undefined;
    await polling;
    await this.connection;
  }

  async send(target: OutboundTarget, message: OutboundMessage): Promise<SendResult> {
    const keyboard = inlineKeyboard(message.buttons);
    if (!keyboard.ok) return { ok: false, retryable: false, error: keyboard.error };
    const options = sendMessageOptions(target, message.format, keyboard.keyboard);
    try {
      const sent = await this.api.sendMessage(telegramChatId(target.chatId), message.text, options);
      return { ok: true, messageId: String(sent.message_id) };
    } catch (error) {
      const failure = describeApiFailure(error);
      if (failure.kind === "rejected" && failure.migrateToChatId !== undefined) return this.sendToMigratedChat(failure.migrateToChatId, target, message, keyboard.keyboard);
      this.noticeRefusedToken(failure);
      return failedSend(failure);
    }
  }

  async edit(target: OutboundTarget, messageId: string, message: OutboundMessage): Promise<SendResult> {
    const { result, failure } = await editTelegramMessage(this.api, target, messageId, message, this.logger);
    if (failure) this.noticeRefusedToken(failure);
    return result;
  }

  async sendTyping(target: OutboundTarget): Promise<void> {
    try {
      await this.api.sendChatAction(telegramChatId(target.chatId), chatActionOptions(target));
    } catch (error) {
      this.noticeRefusedToken(describeApiFailure(error));
      throw error;
    }
  }

  formatMarkdown(markdown: string): string {
    return markdownToTelegramHtml(markdown);
  }

  /** A group that became a supergroup has a new id; the answer goes there. */
  private async sendToMigratedChat(chatId: number, target: OutboundTarget, message: OutboundMessage, keyboard: InlineKeyboardMarkup | undefined): Promise<SendResult> {
    this.logger.info("Telegram group was upgraded to a supergroup; sending to its new id", { from: target.chatId, to: chatId });
    try {
      const sent = await this.api.sendMessage(chatId, message.text, sendMessageOptions({ chatId: String(chatId) }, message.format, keyboard));
      return { ok: true, messageId: String(sent.message_id) };
    } catch (error) {
      const failure = describeApiFailure(error);
      this.noticeRefusedToken(failure);
      return failedSend(failure);
    }
  }

  /**
   * A reply refused for the token means the adapter is not connected, whatever it reported last. While polling, the
   * poller checks getUpdates at once and its own handling of a refused token takes over; otherwise (a webhook, which
   * Telegram stops calling) the set-up loop runs again, unless it already does.
   */
  private noticeRefusedToken(failure: ApiFailure): void {
    if (failure.kind !== "unauthorized" || this.lifetime.signal.aborted) return;
    if (this.poller) this.poller.checkNow();
    else if (!this.settingUp) this.restartSetUp?.(failure);
  }

  private keepConnectedInBackground(context: AdapterContext, health: ConnectionHealth, first: ConnectOutcome): void {
    this.settingUp = true;
    // Runs up to its first wait before this returns, so a failure is already reported as `retrying`.
    this.connection = this.keepConnected(context, health, first)
      .catch((error: unknown) => {
        // Only a bug gets here; the operator sees it rather than a bot that silently stopped listening.
        const message = error instanceof Error ? error.message : String(error);
        this.logger.error("Telegram adapter stopped connecting after an unexpected error", { error: message, stack: error instanceof Error ? error.stack : undefined });
        health.failedForGood(`unexpected error: ${message}`);
      })
      .finally(() => {
        this.settingUp = false;
      });
  }

  /**
   * One attempt to get going: who the bot is, its command menu, then the webhook (connected once it is set) or the
   * removal of an old webhook before polling (connected once getUpdates answers).
   */
  private async connect(context: AdapterContext, health: ConnectionHealth): Promise<ConnectOutcome> {
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
      return signal.aborted ? { kind: "stopped" } : { kind: "failed", failure: describeApiFailure(error), activity: "cannot connect to Telegram" };
    }
    // stop() may have come while the last call was answered: a stopped adapter must not take updates again.
    if (signal.aborted) return { kind: "stopped" };
    this.handler = this.createHandler(bot, context);
    this.logger.info("connected to Telegram", { bot: bot.username, mode: this.settings.webhook ? "webhook" : "long polling" });
    if (this.settings.webhook) health.succeeded();
    return { kind: "connected" };
  }

  /**
   * Retries a failed set-up, polls once set up, and sets up again when polling finds the token refused. With a
   * webhook it ends once set up, and a reply refused for the token starts it again.
   */
  private async keepConnected(context: AdapterContext, health: ConnectionHealth, first: ConnectOutcome): Promise<void> {
    const signal = this.lifetime.signal;
    let outcome = first;
    while (!signal.aborted && outcome.kind !== "stopped") {
      if (outcome.kind === "failed") {
        await this.sleep(health.failed(outcome.failure, outcome.activity), signal);
      } else if (!this.poller || (await this.poller.run()) === "stopped") {
        // With a webhook, Telegram comes to the gateway from now on.
        return;
      }
      if (signal.aborted) return;
      outcome = await this.connect(context, health);
    }
  }

  private createHandler(bot: BotIdentity, context: AdapterContext): UpdateHandler {
    return createUpdateHandler({
      bot,
      gatewayName: this.deps.botName,
      receive: (message) => context.receive(message),
      mayFetchFiles: context.mayFetchFiles?.bind(context),
      attachmentsDir: this.deps.attachmentsDir,
      maxAttachmentBytes: this.deps.maxAttachmentBytes ?? DEFAULT_MAX_ATTACHMENT_BYTES,
      answerCallback: (callbackQueryId) => this.api.answerCallbackQuery(callbackQueryId),
      now: this.now,
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
  }

  private async registerCommands(signal: AbortSignal): Promise<void> {
    await registerCommandMenus(this.api, commandMenus(COMMANDS), this.logger, signal);
  }

  private createPoller(health: ConnectionHealth): UpdatePoller {
    return new UpdatePoller({
      api: this.api,
      handle: async (update, signal) => {
        // The poller runs only once a set-up succeeded, and stops before the handler is dropped.
        if (!this.handler) throw new Error("Telegram adapter is not set up");
        await this.handler(update, signal);
      },
      health,
      logger: this.logger,
      allowedUpdates: ALLOWED_UPDATES,
      timeoutSeconds: this.deps.pollTimeoutSeconds,
      sleep: this.sleep,
      random: this.random,
    });
  }
}

export function createTelegramAdapter(settings: TelegramSettings, deps: TelegramAdapterDeps): TelegramAdapter {
  return new TelegramAdapter(settings, deps);
}
