import type { Logger } from "@hermes/agent";
import type { AdapterStatus } from "@hermes/gateway";

/**
 * The Slack connection's state as the gateway sees it (/readyz, `hermes_adapter_up`), with a log line for each
 * change: every failed attempt is a warning naming its cause, so an outage is never silent. Nothing is reported
 * after `close()` (the adapter stopped).
 *
 * Two things must hold for `connected`: the way events come in (HTTP events set up, or the Socket Mode connection
 * up) and a bot token Slack accepts. The first reports through `connected`/`retrying`; a token refused later, on a
 * reply, holds the state at `retrying` (`tokenRefused`) until auth.test accepts it again (`tokenAccepted`), whatever
 * the connection does meanwhile.
 */
export class ConnectionStatus {
  private closed = false;
  private last: AdapterStatus | undefined;
  private connection: { up: false } | { up: true; detail: Record<string, unknown> } = { up: false };
  private refusedToken: AdapterStatus | undefined;

  constructor(
    private readonly sink: (status: AdapterStatus) => void,
    private readonly logger: Logger,
  ) {}

  get current(): AdapterStatus | undefined {
    return this.last;
  }

  connecting(): void {
    this.report({ state: "connecting" });
  }

  connected(detail: Record<string, unknown> = {}): void {
    if (this.closed) return;
    this.connection = { up: true, detail };
    if (this.refusedToken) {
      // The connection came back (with the app token), but replies still cannot be sent.
      if (this.last !== this.refusedToken) this.report(this.refusedToken);
      return;
    }
    if (this.last?.state === "connected") return;
    const wasDown = this.last?.state === "retrying";
    this.report({ state: "connected" });
    this.logger.info(wasDown ? "slack connected again" : "slack connected", detail);
  }

  retrying(cause: string, retryAt: number, now: number): void {
    if (this.closed) return;
    this.connection = { up: false };
    this.report({ state: "retrying", error: cause, retryAt });
    this.logger.warn("slack connection failed; retrying", { cause, retryInMs: Math.max(0, retryAt - now) });
  }

  /** Slack refused the bot token between connection attempts (a reply, a reaction, or auth.test checking it again). */
  tokenRefused(cause: string, retryAt: number, now: number, message = "slack refused the bot token; checking it with auth.test until Slack accepts it"): void {
    if (this.closed) return;
    this.refusedToken = { state: "retrying", error: cause, retryAt };
    this.report(this.refusedToken);
    this.logger.warn(message, { cause, retryInMs: Math.max(0, retryAt - now) });
  }

  /** auth.test accepts the bot token again: connected if the connection is up, else its own retries go on. */
  tokenAccepted(): void {
    if (this.closed || !this.refusedToken) return;
    this.refusedToken = undefined;
    if (this.connection.up) this.connected(this.connection.detail);
  }

  failed(cause: string): void {
    if (this.closed) return;
    this.report({ state: "failed", error: cause });
    this.logger.error("slack cannot start", { cause });
  }

  close(): void {
    this.closed = true;
  }

  private report(status: AdapterStatus): void {
    if (this.closed) return;
    this.last = status;
    this.sink(status);
  }
}
