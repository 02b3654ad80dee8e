import type { webApi } from "@slack/bolt";
import { identifyBotUntilAccepted } from "./bot-identity.js";
import type { ConnectionStatus } from "./connection-status.js";
import type { RetryPolicy } from "./retry-policy.js";
import { botTokenRefusal } from "./slack-failure.js";

export interface TokenRecheckOptions {
  client: webApi.WebClient;
  status: ConnectionStatus;
  retry: RetryPolicy;
  now: () => number;
  /** Aborted when the adapter stops: no check starts after that, and one under way ends at its next wait. */
  signal: AbortSignal;
}

/**
 * Notices a bot token Slack refuses while the adapter runs. With HTTP events nothing calls Slack between messages,
 * and in Socket Mode the connection lives on the app token, so a revoked bot token first shows as a refused reply:
 * the adapter is then reported `retrying` with the cause, and auth.test is asked with backoff until Slack accepts
 * the token again. One check at a time, however many replies fail meanwhile.
 */
export class BotTokenRecheck {
  private running: Promise<void> | undefined;

  constructor(private readonly options: TokenRecheckOptions) {}

  /** Looks at a failed Web API call made with the bot token. */
  notice(error: unknown): void {
    const refusal = botTokenRefusal(error);
    if (!refusal || this.running || this.options.signal.aborted) return;
    const { status, now } = this.options;
    // The first check goes out at once.
    status.tokenRefused(refusal.cause, now(), now());
    this.running = this.untilAccepted()
      .catch((error: unknown) => {
        // A bug, not Slack: nothing would check the token again, so it is shown as failed.
        status.failed(`the Slack bot token could not be checked again: ${error instanceof Error ? error.message : String(error)}`);
      })
      .finally(() => {
        this.running = undefined;
      });
  }

  private async untilAccepted(): Promise<void> {
    const { client, status, retry, now, signal } = this.options;
    const failedCheck = { retrying: (cause: string, retryAt: number, at: number) => status.tokenRefused(cause, retryAt, at, "slack auth.test still fails; retrying") };
    const identity = await identifyBotUntilAccepted(client, { status: failedCheck, retry, now, signal, onFailure: () => {} });
    if (identity) status.tokenAccepted();
  }
}
