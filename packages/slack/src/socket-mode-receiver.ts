import type { App, Receiver, ReceiverEvent } from "@slack/bolt";
import { unreadableBody } from "./event-shape.js";
import { isRecord } from "./slack-events.js";
import { SocketModeConnection, type SocketModeConnectionOptions } from "./socket-mode-connection.js";

/** The connection's own options, less the envelope callback the receiver supplies. */
export type SlackSocketReceiverOptions = Omit<SocketModeConnectionOptions, "onEnvelope"> & {
  /** Takes a `slash_commands` envelope's payload; resolves with what the envelope's confirmation carries (if anything). */
  onSlashCommand?: (payload: Record<string, unknown>) => Promise<Record<string, unknown> | undefined>;
  /** Takes an `interactive` envelope's payload (a button press); resolves once it is handled. */
  onInteraction?: (payload: Record<string, unknown>) => Promise<void>;
};

type EnvelopeAck = (response?: Record<string, unknown>) => Promise<void>;

/**
 * Bolt's Receiver for Socket Mode that confirms an envelope to Slack only once its event has been handled (the
 * message persisted). Bolt acknowledges events before running listeners, so its stock receiver would confirm an event
 * that is then lost when persisting fails or the process restarts; an unconfirmed envelope is delivered again by Slack
 * (with retry_attempt), and the adapter handles repeats once. The connection itself reconnects until stopped.
 */
export class SlackSocketReceiver implements Receiver {
  private app: App | undefined;
  private readonly connection: SocketModeConnection;

  constructor(private readonly options: SlackSocketReceiverOptions) {
    this.connection = new SocketModeConnection({ ...options, onEnvelope: (args) => void this.deliver(args) });
  }

  init(app: App): void {
    this.app = app;
  }

  /** Resolves once the first connection attempt has succeeded or failed; later attempts go on in the background. */
  async start(): Promise<void> {
    await this.connection.start();
  }

  async stop(): Promise<void> {
    this.connection.stop();
  }

  private async deliver(args: unknown): Promise<void> {
    const app = this.app;
    if (!app || !isRecord(args) || typeof args.ack !== "function") return;
    const confirm = args.ack as EnvelopeAck;
    const body = args.body;
    if (args.type === "slash_commands" && isRecord(body) && this.options.onSlashCommand) {
      // Slack does not deliver a slash command again, so it is confirmed whatever happens; a failure is told in the answer.
      await this.confirmQuietly(confirm, await this.options.onSlashCommand(body));
      return;
    }
    if (args.type === "interactive" && isRecord(body) && this.options.onInteraction) {
      // Confirmed whatever happens, like Slack's HTTP answer to a press: the presser can press again, and a resent
      // press would only be another copy of one the gateway may already have.
      await this.options.onInteraction(body);
      await this.confirmQuietly(confirm, undefined);
      return;
    }
    const unreadable = isRecord(body) ? unreadableBody(body) : "payload is not an object";
    if (unreadable || !isRecord(body)) {
      // Slack would deliver it again and again, and it would never be any better.
      if (unreadable === "not an Events API event") this.options.logger.debug("slack envelope without an event confirmed and ignored", { envelopeId: args.envelope_id });
      else this.options.logger.warn("slack event confirmed but ignored: it cannot be read", { reason: unreadable, envelopeId: args.envelope_id });
      await this.confirmQuietly(confirm, undefined);
      return;
    }
    let response: Record<string, unknown> | undefined;
    const event: ReceiverEvent = {
      body,
      ack: async (answer?: unknown) => {
        if (isRecord(answer)) response = answer;
      },
      retryNum: typeof args.retry_num === "number" ? args.retry_num : undefined,
      retryReason: typeof args.retry_reason === "string" ? args.retry_reason : undefined,
    };
    try {
      await app.processEvent(event);
    } catch (error) {
      this.options.logger.error("slack event failed; not confirmed, so Slack will deliver it again", { error: describe(error), envelopeId: args.envelope_id });
      return;
    }
    await this.confirmQuietly(confirm, response);
  }

  private async confirmQuietly(confirm: EnvelopeAck, response: Record<string, unknown> | undefined): Promise<void> {
    try {
      await confirm(response);
    } catch (error) {
      this.options.logger.warn("slack event handled but its confirmation could not be sent; Slack may deliver it again", { error: describe(error) });
    }
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
