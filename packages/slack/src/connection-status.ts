import type { Logger } from "@hermes/agent";
import type { AdapterStatus } from "@hermes/gateway";

/**
 * The Slack connection's state as the gateway sees it (/readyz, `hermes_adapter_up`), with a log line for each
 * change: every failed attempt is a warning naming its cause, so an outage is never silent. Nothing is reported
 * after `close()` (the adapter stopped).
 */
export class ConnectionStatus {
  private closed = false;
  private last: AdapterStatus | undefined;

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
    if (this.closed || this.last?.state === "connected") return;
    const wasDown = this.last?.state === "retrying";
    this.report({ state: "connected" });
    this.logger.info(wasDown ? "slack connected again" : "slack connected", detail);
  }

  retrying(cause: string, retryAt: number, now: number): void {
    if (this.closed) return;
    this.report({ state: "retrying", error: cause, retryAt });
    this.logger.warn("slack connection failed; retrying", { cause, retryInMs: Math.max(0, retryAt - now) });
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
