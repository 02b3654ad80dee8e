import type { App } from "@slack/bolt";
import type { Logger } from "@hermes/agent";
import type { AdapterContext, InboundMessage } from "@hermes/gateway";
import type { BotThreads } from "./bot-threads.js";
import { attachmentFor, downloadSlackFiles } from "./file-download.js";
import { isAddressedToBot, normalizeSlackEvent } from "./normalize.js";
import { OncePerKey } from "./once-per-key.js";
import { envelopeEventId, readMessageEvent, type SlackFile } from "./slack-events.js";
import type { UserNames } from "./user-names.js";
import type { WorkingReaction } from "./working-reaction.js";

/** How files of messages meant for the bot are fetched. */
export interface FileFetching {
  botToken: string;
  /** Where downloaded files are saved (inside the agent's workspace). */
  directory: string;
  maxBytes: number;
  /** Origins the bot token may be sent to. */
  trustedOrigins: ReadonlySet<string>;
  fetch: typeof fetch;
  /** How long all of a message's downloads may take before it is handed over without the rest. */
  budgetMs: number;
}

export interface EventIntakeOptions {
  logger: Logger;
  /**
   * The gateway while the adapter runs, undefined once it has stopped: an event then fails instead of being
   * acknowledged and dropped, so Slack delivers it again to the next run.
   */
  context: () => AdapterContext | undefined;
  /** Threads the bot has posted in (the adapter fills it as it replies), so plain replies there reach the bot. */
  threads: BotThreads;
  /** How long a message waits for its sender's name on a cache miss before going on with the user id. */
  nameLookupWaitMs: number;
  files: FileFetching;
}

/** What one connection to Slack gives the intake: who the bot is, and the clients for names and the reaction. */
export interface IntakeConnection {
  bot: { userId: string; name?: string };
  names: UserNames;
  reaction: WorkingReaction;
}

/**
 * Turns Slack's message and app_mention events into messages handed to the gateway. A handler resolves only after
 * the gateway has persisted the message, which is what lets the receivers acknowledge Slack only then. The dedup
 * state lives as long as the adapter, so a re-delivery across a reconnect is still recognised.
 */
export class SlackEventIntake {
  private readonly events = new OncePerKey();
  private readonly messages = new OncePerKey();

  constructor(private readonly options: EventIntakeOptions) {}

  /** Registers the intake on a Bolt app; called before the app starts, so no event arrives without a connection. */
  listen(app: App, connection: IntakeConnection): void {
    app.use(async ({ body, next }) => this.oncePerEvent(body, next));
    app.event("message", async ({ event }) => this.handleEvent(event, connection));
    app.event("app_mention", async ({ event }) => this.handleEvent(event, connection));
  }

  /** Slack re-delivers an event it thinks was lost (X-Slack-Retry-Num, Socket Mode retry_attempt): handle it once. */
  private async oncePerEvent(body: unknown, next: () => Promise<void>): Promise<void> {
    const eventId = envelopeEventId(body);
    if (eventId === undefined) return next();
    if (!(await this.events.claim(eventId))) {
      this.options.logger.debug("slack event delivered again; already handled", { eventId });
      return;
    }
    let handled = false;
    try {
      await next();
      handled = true;
    } finally {
      this.events.settle(eventId, handled);
    }
  }

  private async handleEvent(raw: unknown, { bot, names, reaction }: IntakeConnection): Promise<void> {
    const event = readMessageEvent(raw);
    if (!this.options.context()) throw new Error("the Slack adapter is stopped");
    if (!event) return;
    const threads = this.options.threads;
    const normalized = normalizeSlackEvent(event, { botUserId: bot.userId, botName: bot.name, botIsInThread: (channel, ts) => threads.has(channel, ts) });
    if (!normalized.ok) {
      this.options.logger.debug("slack event ignored", { reason: normalized.reason, channel: event.channel });
      return;
    }
    const { message, files } = normalized;
    // The same message also comes as app_mention (or message): one hand-over is enough.
    if (!(await this.messages.claim(message.messageId))) return;
    let handed = false;
    try {
      const addressed = isAddressedToBot(message);
      // Both run side by side and are bounded, so the message is persisted within Slack's acknowledgement deadline.
      const naming = names.nameWithin(message.user.id, this.options.nameLookupWaitMs);
      if (files.length > 0) await this.attachFiles(message, files, addressed && (await this.mayFetchFiles(message)));
      const name = await naming;
      if (name) message.user.name = name;
      const context = this.options.context();
      if (!context) throw new Error("the Slack adapter stopped while the message was being prepared");
      await context.receive(message);
      handed = true;
      if (addressed) reaction.add(message.chat.id, event.ts);
    } finally {
      this.messages.settle(message.messageId, handed);
    }
  }

  /**
   * The gateway's say on fetching a message's files (AdapterContext.mayFetchFiles): a stranger's are only listed. A
   * gate that cannot answer rejects, so the event is not acknowledged and Slack delivers it again.
   */
  private async mayFetchFiles(message: InboundMessage): Promise<boolean> {
    const context = this.options.context();
    return context?.mayFetchFiles ? context.mayFetchFiles(message) : true;
  }

  /** Files of messages meant for the bot are downloaded; others (seen only with /respond all) are just listed. */
  private async attachFiles(message: InboundMessage, files: readonly SlackFile[], download: boolean): Promise<void> {
    if (!download) {
      message.attachments = files.map(attachmentFor);
      return;
    }
    const { budgetMs, ...fetching } = this.options.files;
    const downloaded = await downloadSlackFiles(files, { ...fetching, messageKey: message.messageId, logger: this.options.logger, deadline: AbortSignal.timeout(budgetMs) });
    message.attachments = downloaded.attachments;
    if (downloaded.notes.length > 0) message.text = [message.text, ...downloaded.notes.map((note) => `[${note}]`)].filter(Boolean).join("\n\n");
  }
}
