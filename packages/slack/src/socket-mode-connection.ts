import type { SocketModeClient } from "@slack/socket-mode";
import type { Logger as BoltLogger } from "@slack/bolt";
import type { Logger } from "@hermes/agent";
import type { ConnectionStatus } from "./connection-status.js";
import { GuardedSocketModeClient } from "./guarded-socket-client.js";
import { retryDelayMs, type RetryPolicy } from "./retry-policy.js";
import { webApiUrlFor } from "./slack-api-url.js";
import { isRecord } from "./slack-events.js";
import { connectionFailure, innermostMessage, type ConnectionFailure } from "./slack-failure.js";

export interface SocketModeConnectionOptions {
  appToken: string;
  apiUrl: string | undefined;
  logger: Logger;
  boltLogger: BoltLogger;
  status: ConnectionStatus;
  retry: RetryPolicy;
  now: () => number;
  /** Each envelope Slack sends (the client's `slack_event`). */
  onEnvelope: (args: unknown) => void;
}

type Phase = "idle" | "connecting" | "connected" | "waiting" | "stopped";

const APP_TOKEN_CALL = { method: "apps.connections.open", token: "SLACK_APP_TOKEN" } as const;

/**
 * Keeps one Socket Mode connection up until `stop()`, whatever happens. The client's own reconnect policy is off:
 * it gives up for good on a refused app token or an unreachable Slack, its delays grow without a cap, and a failed
 * reconnect of its own rejects where nobody listens. Here every failure (apps.connections.open refused or failing,
 * the websocket closing before or after Slack's `hello`) is reported with its cause and retried with capped
 * exponential backoff, on the same client, so its event handler stays in place.
 */
export class SocketModeConnection {
  private readonly client: SocketModeClient;
  private phase: Phase = "idle";
  private failures = 0;
  private timer: NodeJS.Timeout | undefined;
  /** What the websocket last said went wrong (an error, Slack asking to reconnect), for the next cause. */
  private socketTrouble: string | undefined;
  private settleFirst: () => void = () => {};
  private readonly firstSettled = new Promise<void>((resolve) => {
    this.settleFirst = resolve;
  });

  constructor(private readonly options: SocketModeConnectionOptions) {
    this.client = new GuardedSocketModeClient({
      appToken: options.appToken,
      logger: options.boltLogger,
      autoReconnectEnabled: false,
      // No retries inside the client: each failure comes back here at once, with its cause.
      clientOptions: { slackApiUrl: webApiUrlFor(options.apiUrl), retryConfig: { retries: 0 }, rejectRateLimitedCalls: true, timeout: 30_000 },
    });
    this.client.on("slack_event", (args: unknown) => options.onEnvelope(args));
    this.client.on("connected", () => this.onConnected());
    this.client.on("disconnected", () => this.onDisconnected());
    this.client.on("error", (error: unknown) => {
      this.socketTrouble = innermostMessage(error);
    });
    // Slack recycles connections now and then and says so first (the client handles that message without an event).
    this.client.on("ws_message", (data: unknown) => {
      const reason = disconnectReason(data);
      if (reason) this.socketTrouble = `Slack asked the app to reconnect: ${reason}`;
    });
  }

  /** Starts connecting; resolves once the first attempt has connected or failed (retries go on in the background). */
  start(): Promise<void> {
    if (this.phase === "idle") this.attempt();
    return this.firstSettled;
  }

  stop(): void {
    this.phase = "stopped";
    clearTimeout(this.timer);
    this.timer = undefined;
    this.settleFirst();
    this.disconnect();
  }

  private attempt(): void {
    if (this.phase === "stopped") return;
    this.phase = "connecting";
    this.socketTrouble = undefined;
    this.client.start().then(
      () => undefined,
      (error: unknown) => {
        // Only the attempt still under way decides; a later close is handled by onDisconnected.
        if (this.phase !== "connecting") return;
        this.retryAfter(error === undefined ? this.lostConnection("closed before Slack greeted it") : connectionFailure(error, APP_TOKEN_CALL));
      },
    );
  }

  private onConnected(): void {
    if (this.phase === "stopped") {
      // A handshake that finished after stop(): close it so nothing keeps the process alive.
      this.disconnect();
      return;
    }
    this.phase = "connected";
    this.failures = 0;
    this.socketTrouble = undefined;
    this.options.status.connected({ mode: "socket" });
    this.settleFirst();
  }

  private onDisconnected(): void {
    if (this.phase !== "connected") return;
    this.phase = "waiting";
    // The websocket's error event comes right after its close; waiting a tick lets the cause name it.
    queueMicrotask(() => this.retryAfter(this.lostConnection("closed")));
  }

  private lostConnection(what: string): ConnectionFailure {
    return { cause: `the Socket Mode connection ${what}${this.socketTrouble ? ` (${this.socketTrouble})` : ""}` };
  }

  private retryAfter(failure: ConnectionFailure): void {
    if (this.phase === "stopped") return;
    this.failures += 1;
    const delayMs = retryDelayMs(this.failures, this.options.retry, failure.retryAfterMs);
    this.phase = "waiting";
    this.options.status.retrying(failure.cause, this.options.now() + delayMs, this.options.now());
    this.settleFirst();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.attempt();
    }, delayMs);
  }

  private disconnect(): void {
    // Not awaited: a connection that never completed its handshake may not report the disconnect.
    this.client.disconnect().catch((error: unknown) => this.options.logger.warn("slack Socket Mode disconnect failed", { error: innermostMessage(error) }));
  }
}

/** The reason of Slack's `{"type":"disconnect","reason":…}` message (e.g. "refresh_requested"), if `data` is one. */
function disconnectReason(data: unknown): string | undefined {
  if (typeof data !== "string" || !data.includes('"disconnect"')) return undefined;
  try {
    const message: unknown = JSON.parse(data);
    if (!isRecord(message) || message.type !== "disconnect") return undefined;
    return typeof message.reason === "string" ? message.reason : "no reason given";
  } catch {
    return undefined;
  }
}
