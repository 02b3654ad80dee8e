import { setImmediate as nextTurn } from "node:timers/promises";
import type { Logger } from "@hermes/agent";
import { cappedBackoffMs } from "@hermes/gateway";
import type { Update } from "grammy/types";
import { describeApiFailure, type ApiFailure } from "./api-errors.js";
import { RETRY_SCHEDULE } from "./backoff.js";

export type UpdateKind = "message" | "edited_message" | "channel_post" | "edited_channel_post" | "callback_query";

export interface UpdateSource {
  getUpdates(
    options: { offset?: number; limit?: number; timeout?: number; allowed_updates?: readonly UpdateKind[] },
    signal?: AbortSignal,
  ): Promise<Update[]>;
}

/** Where the poller tells how getUpdates is doing; `failed` answers how long to wait before trying again. */
export interface PollingHealth {
  failed(failure: ApiFailure, activity: string): number;
  succeeded(): void;
}

export interface UpdatePollerOptions {
  api: UpdateSource;
  /** Hands an update to the gateway; resolves once it is persisted, throws when it could not be. */
  handle: (update: Update, signal: AbortSignal) => Promise<void>;
  health: PollingHealth;
  logger: Logger;
  allowedUpdates: readonly UpdateKind[];
  /** Seconds Telegram holds a getUpdates call open while there is nothing new (default 30). */
  timeoutSeconds?: number;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  random: () => number;
}

/**
 * How a run of polling ended: stopped by us, or a refused token, after which the caller sets the bot up again
 * (getMe and the rest) before polling once more.
 */
export type PollingEnd = "stopped" | "unauthorized";

const CONFIRM_TIMEOUT_MS = 2_000;

/**
 * Long polling with the delivery guarantee the gateway needs: updates are handed over one at a time, and the offset
 * that confirms an update to Telegram moves past it only once the gateway has persisted it. Every failed getUpdates
 * (network, server, 409 conflict, 429, refused token) is reported to `health` and retried with backoff, forever.
 */
export class UpdatePoller {
  private offset: number | undefined;
  private handOverFailures = 0;
  private readonly abort = new AbortController();
  private running: Promise<PollingEnd> | undefined;
  /** Cuts short the long poll under way (a probe call is never cut: it answers at once anyway). */
  private heldPoll: AbortController | undefined;

  constructor(private readonly options: UpdatePollerOptions) {}

  /** Polls until stopped or until the token is refused; may be called again after that, keeping the offset. */
  run(): Promise<PollingEnd> {
    this.running ??= this.loop().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /**
   * Ends the long poll under way, if any, so the next call answers at once and tells whether Telegram still accepts
   * the token: a refused reply then goes the way of a refused getUpdates. Updates a cut poll was about to return
   * are not confirmed, so Telegram sends them again.
   */
  checkNow(): void {
    this.heldPoll?.abort();
  }

  /** Ends the current long poll, lets an update being handed over finish, and confirms what was handed over. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.running;
  }

  private async loop(): Promise<PollingEnd> {
    const { health, sleep } = this.options;
    const signal = this.abort.signal;
    // After a start or a failure, a call that answers at once tells whether polling works, rather than a long poll
    // that would keep the answer (and with it the adapter's state) for up to 30 s.
    let probing = true;
    while (!signal.aborted) {
      let updates: Update[];
      const held = probing ? undefined : new AbortController();
      this.heldPoll = held;
      try {
        updates = await this.options.api.getUpdates(
          { offset: this.offset, timeout: probing ? 0 : (this.options.timeoutSeconds ?? 30), allowed_updates: this.options.allowedUpdates },
          held ? AbortSignal.any([signal, held.signal]) : signal,
        );
      } catch (error) {
        if (signal.aborted) break;
        if (held?.signal.aborted) {
          probing = true;
          continue;
        }
        const failure = describeApiFailure(error);
        await sleep(health.failed(failure, "Telegram polling failed"), signal);
        if (failure.kind === "unauthorized" && !signal.aborted) return "unauthorized";
        probing = true;
        continue;
      } finally {
        this.heldPoll = undefined;
      }
      if (probing) health.succeeded();
      probing = false;
      await this.handOver(updates, signal);
    }
    await this.confirm();
    return "stopped";
  }

  private async handOver(updates: Update[], signal: AbortSignal): Promise<void> {
    for (const [index, update] of updates.entries()) {
      // Handing an update over can finish without waiting on any I/O (the store is synchronous), so a batch of up to
      // 100 would hold the event loop for all of them: the runs, replies and model answers already waiting get a turn
      // between updates, as they would between updates arriving one by one.
      if (index > 0) await nextTurn();
      if (signal.aborted) return;
      try {
        await this.options.handle(update, signal);
      } catch (error) {
        if (signal.aborted) return;
        // Not persisted: the offset stays, so Telegram sends this update again with the next call.
        const delayMs = cappedBackoffMs(this.handOverFailures + 1, RETRY_SCHEDULE, this.options.random);
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
