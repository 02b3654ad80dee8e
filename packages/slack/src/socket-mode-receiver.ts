import { SocketModeClient } from "@slack/socket-mode";
import type { App, Logger as BoltLogger, Receiver, ReceiverEvent } from "@slack/bolt";
import type { Logger } from "@hermes/agent";
import { webApiUrlFor } from "./slack-api-url.js";
import { isRecord } from "./slack-events.js";

export interface SlackSocketReceiverOptions {
  appToken: string;
  apiUrl: string | undefined;
  logger: Logger;
  boltLogger: BoltLogger;
}

type EnvelopeAck = (response?: Record<string, unknown>) => Promise<void>;

/**
 * Bolt's Receiver for Socket Mode that confirms an envelope to Slack only once its event has been handled (the
 * message persisted). Bolt acknowledges events before running listeners, so its stock receiver would confirm an event
 * that is then lost when persisting fails or the process restarts; an unconfirmed envelope is delivered again by Slack
 * (with retry_attempt), and the adapter handles repeats once.
 */
export class SlackSocketReceiver implements Receiver {
  private app: App | undefined;
  private readonly client: SocketModeClient;

  constructor(private readonly options: SlackSocketReceiverOptions) {
    // The client keeps its own (long) retry policy for `apps.connections.open`, also when reconnecting.
    this.client = new SocketModeClient({ appToken: options.appToken, logger: options.boltLogger, clientOptions: { slackApiUrl: webApiUrlFor(options.apiUrl) } });
    this.client.on("slack_event", (args: unknown) => void this.deliver(args));
  }

  init(app: App): void {
    this.app = app;
  }

  async start(): Promise<void> {
    await this.client.start();
  }

  async stop(): Promise<void> {
    // Not awaited: a connection that never completed its handshake may not report the disconnect.
    this.client.disconnect().catch((error: unknown) => this.options.logger.warn("slack Socket Mode disconnect failed", { error: describe(error) }));
  }

  private async deliver(args: unknown): Promise<void> {
    const app = this.app;
    if (!app || !isRecord(args) || typeof args.ack !== "function" || !isRecord(args.body)) return;
    const confirm = args.ack as EnvelopeAck;
    let response: Record<string, unknown> | undefined;
    const event: ReceiverEvent = {
      body: args.body,
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
