import type { Logger } from "@hermes/agent";
import type { Update } from "grammy/types";
import { describeApiFailure } from "./api-errors.js";
import { backoffMs } from "./backoff.js";

export type UpdateKind = "message" | "edited_message" | "channel_post" | "edited_channel_post";

export interface UpdateSource {
  getUpdates(
    options: { offset?: number; limit?: number; timeout?: number; allowed_updates?: readonly UpdateKind[] },
    signal?: AbortSignal,
  ): Promise<Update[]>;
}

export interface UpdatePollerOptions {
  api: UpdateSource;
  /** Hands an update to the gateway; resolves once it is persisted, throws when it could not be. */
  handle: (update: Update, signal: AbortSignal) => Promise<void>;
  logger: Logger;
  allowedUpdates: readonly UpdateKind[];
  /** Seconds Telegram holds a getUpdates call open while there is nothing new (default 30). */
  timeoutSeconds?: number;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  random: () => number;
}

/** How polling ended, for the operator: stopped by us, or given up because polling cannot work. */
export type PollingEnd = "stopped" | "conflict" | "unauthorized";

// Another instance usually goes away within a minute (a deploy overlapping the old process); after that it is a
// second bot process on the same token, which polling again cannot fix.
const CONFLICT_RETRIES = 4;
const CONFLICT_DELAY_MS = 5_000;
const CONFIRM_TIMEOUT_MS = 2_000;

/**
 * Long polling with the delivery guarantee the gateway needs: updates are handed over one at a time, and the offset
 * that confirms an update to Telegram moves past it only once the gateway has persisted it. Network and server
 * errors are retried with backoff; a 409 conflict is retried a few times, then polling stops with an error log.
 */
export class UpdatePoller {
  private offset: number | undefined;
  private handOverFailures = 0;
  private readonly abort = new AbortController();
  private running: Promise<PollingEnd> | undefined;

  constructor(private readonly options: UpdatePollerOptions) {}

  /** Starts polling; the promise says how polling ended. */
  start(): Promise<PollingEnd> {
    this.running ??= this.loop();
    return this.running;
  }

  /** Ends the current long poll, lets an update being handed over finish, and confirms what was handed over. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.running;
  }

  private async loop(): Promise<PollingEnd> {
    const { logger, sleep } = this.options;
    const signal = this.abort.signal;
    let failures = 0;
    let conflicts = 0;
    while (!signal.aborted) {
      let updates: Update[];
      try {
        updates = await this.options.api.getUpdates(
          { offset: this.offset, timeout: this.options.timeoutSeconds ?? 30, allowed_updates: this.options.allowedUpdates },
          signal,
        );
      } catch (error) {
        if (signal.aborted) break;
        const failure = describeApiFailure(error);
        if (failure.kind === "unauthorized") {
          logger.error("Telegram rejected the bot token while polling; polling stopped. Check TELEGRAM_BOT_TOKEN.", { error: failure.message });
          return "unauthorized";
        }
        if (failure.kind === "conflict") {
          conflicts += 1;
          if (conflicts > CONFLICT_RETRIES) {
            logger.error(
              "Telegram polling stopped: another process keeps polling this bot token (409 Conflict). Stop the other instance, or remove the webhook another deployment set, then restart the gateway.",
              { error: failure.message, attempts: conflicts },
            );
            return "conflict";
          }
          const delayMs = CONFLICT_DELAY_MS * 2 ** (conflicts - 1);
          logger.error("Telegram refused polling: another instance is polling this bot token (409 Conflict); retrying", { error: failure.message, attempt: conflicts, retryInMs: delayMs });
          await sleep(delayMs, signal);
          continue;
        }
        const delayMs = failure.kind === "rate-limited" ? failure.retryAfterMs : backoffMs(failures, this.options.random);
        failures += 1;
        if (failures === 1 || failures % 10 === 0) logger.warn("Telegram polling failed; retrying", { error: failure.message, failures, retryInMs: delayMs });
        await sleep(delayMs, signal);
        continue;
      }
      if (failures > 0) logger.info("Telegram polling recovered", { failures });
      failures = 0;
      conflicts = 0;
      await this.handOver(updates, signal);
    }
    await this.confirm();
    return "stopped";
  }

  private async handOver(updates: Update[], signal: AbortSignal): Promise<void> {
    for (const update of updates) {
      if (signal.aborted) return;
      try {
        await this.options.handle(update, signal);
      } catch (error) {
        if (signal.aborted) return;
        // Not persisted: the offset stays, so Telegram sends this update again with the next call.
        const delayMs = backoffMs(this.handOverFailures, this.options.random);
        this.handOverFailures += 1;
        this.options.logger.error("could not hand a Telegram update to the gateway; it will be fetched again", {
          updateId: update.update_id,
          error: error instanceof Error ? error.message : String(error),
          retryInMs: delayMs,
        });
        await this.options.sleep(delayMs, signal);
        return;
      }
      this.handOverFailures = 0;
      // Never backwards: a re-sent old update must not un-confirm newer ones.
      this.offset = Math.max(this.offset ?? 0, update.update_id + 1);
    }
  }

  /** Confirms the updates handed over since the last call, so the next start does not fetch them again. */
  private async confirm(): Promise<void> {
    if (this.offset === undefined) return;
    try {
      await this.options.api.getUpdates({ offset: this.offset, limit: 1, timeout: 0 }, AbortSignal.timeout(CONFIRM_TIMEOUT_MS));
    } catch (error) {
      this.options.logger.debug("could not confirm the last Telegram updates; they will be deduplicated after restart", { error: describeApiFailure(error).message });
    }
  }
}
