import type { Logger } from "@hermes/agent";
import { utcDayOf, type CronJobRecord, type Store } from "@hermes/store";
import type { InboundMessage } from "../core/inbound.js";
import type { HookPort } from "../core/ports.js";
import { newSessionFor } from "../core/session-key.js";
import { FailureStreak } from "../logging/failure-streak.js";
import { realPacerClock, type PacerClock } from "../outbound/pacer-clock.js";
import { onCronJobsChanged } from "./cron-changes.js";
import { formatTime } from "./cron-jobs.js";
import { cronMessageId, cronRunKey } from "./cron-run-key.js";
import { nextSlotAfter } from "./schedule.js";

export interface CronSchedulerOptions {
  store: Pick<Store, "cronJobs" | "inbound" | "sessions" | "deliveries">;
  /** The normal run queue (inline or BullMQ): the run's reply reaches the job's chat through the outbox. */
  queue: { enqueue(job: { inboundId: number; sessionKey: string }): Promise<unknown> };
  /** Slots are taken only while this is true (the active gateway); a standby only looks again a second later. */
  isActive: () => boolean;
  /** The platforms this process runs: others' jobs are left to the process that does (the console's to `npm run chat`). */
  platforms?: () => readonly string[];
  /**
   * Whether the job's creator may still use the bot (allowlist or pairing): a job outlives a `hermes pairing revoke`,
   * and its runs must not go on in the name of someone the operator shut out. Absent: everyone may.
   */
  creatorAllowed?: (platform: string, userId: string) => Promise<boolean>;
  /**
   * Whether the creator's spend today reached HERMES_DAILY_BUDGET_USD. The first such slot of a UTC day still runs
   * (the run answers with the budget notice, as a chat message would); the day's later slots pass silently, instead of
   * posting the same notice at every slot until midnight. Absent: no budget.
   */
  overBudget?: (platform: string, userId: string, now: number) => Promise<boolean>;
  logger: Logger;
  /** session:end of the previous run's conversation and session:start of the new one, as for a chat's. */
  hooks?: HookPort;
  /** Wall-clock time and timers; injectable for tests. */
  clock?: PacerClock;
  /** The longest sleep between looks at the jobs (default 10 s): jobs created by other processes are found then. */
  pollMs?: number;
  /** A one-shot this late is reported missed instead of run (default 1 hour). */
  missedAfterMs?: number;
}

export interface CronScheduler {
  /** Looks at the due jobs now (tests; `start` does it by itself). Resolves when the look is over. */
  tick(): Promise<void>;
  start(): void;
  /** Stops waking up and waits for a look under way. */
  stop(): Promise<void>;
}

const DUE_BATCH = 200;
/** This many replies of a job's runs in a row failed for good: its chat is gone (the bot removed, the chat deleted). */
const FAILED_REPLIES_TO_PAUSE = 3;
const INACTIVE_RECHECK_MS = 1_000;
const HOUR_MS = 3_600_000;

// Slots are wall-clock times (a cron expression, an ISO time), so unlike the pacer this clock is Date.now.
const wallClock: PacerClock = { now: () => Date.now(), schedule: realPacerClock.schedule };

/**
 * Starts each job's due slot as an agent run. A slot is claimed with a compare-and-set on the job's next run, so of
 * several gateways (or a restart racing its predecessor) exactly one starts it.
 */
export function createCronScheduler(options: CronSchedulerOptions): CronScheduler {
  const { store, logger } = options;
  const clock = options.clock ?? wallClock;
  const pollMs = options.pollMs ?? 10_000;
  const missedAfterMs = options.missedAfterMs ?? HOUR_MS;
  let running = false;
  let cancelTimer: (() => void) | undefined;
  let looking: Promise<void> | undefined;
  let lookAgain = false;
  let unsubscribe: (() => void) | undefined;

  /** Looks at the jobs now, or right after the look under way; then sleeps until the next slot. */
  const wake = (): void => {
    if (!running) return;
    if (looking) {
      lookAgain = true;
      return;
    }
    cancelTimer?.();
    looking = lookAndSleep().finally(() => {
      looking = undefined;
      if (lookAgain) {
        lookAgain = false;
        wake();
      }
    });
  };

  const lookFailures = new FailureStreak(logger, { failed: "the scheduler could not look at the scheduled tasks; it tries again shortly", recovered: "the scheduler can look at the scheduled tasks again", level: "error" }, () => clock.now());
  const lookAndSleep = async (): Promise<void> => {
    let delay = pollMs;
    try {
      delay = await look();
      lookFailures.succeeded();
    } catch (error) {
      lookFailures.failed({ error });
    }
    if (running && !lookAgain) cancelTimer = clock.schedule(wake, delay);
  };

  /** Starts what is due; returns how long to sleep. */
  const look = async (): Promise<number> => {
    if (!options.isActive()) return INACTIVE_RECHECK_MS;
    const now = clock.now();
    const platforms = options.platforms?.();
    const due = await store.cronJobs.due(now, DUE_BATCH, platforms);
    for (const job of due) {
      try {
        await takeSlot(job, now);
      } catch (error) {
        logger.error("a scheduled task could not be started", { jobId: job.id, error });
      }
    }
    // A full batch may hide more due jobs.
    if (due.length === DUE_BATCH) return 0;
    const [next] = await store.cronJobs.due(Number.MAX_SAFE_INTEGER, 1, platforms);
    if (next?.nextRunAt == null || next.nextRunAt <= now) return pollMs;
    return Math.min(pollMs, Math.max(0, next.nextRunAt - clock.now()));
  };

  const takeSlot = async (job: CronJobRecord, now: number): Promise<void> => {
    const slot = job.nextRunAt;
    if (slot === null) return;
    const key = cronRunKey(job.id);
    if (job.kind === "once" && now - slot > missedAfterMs) {
      if (!(await store.cronJobs.advance(job.id, slot, { nextRunAt: null, lastRunAt: now, lastStatus: "missed" }))) return;
      logger.warn("a one-shot scheduled task was missed: the gateway was not running at its time", { jobId: job.id, slot });
      await tellChat(job, `The scheduled task ${job.id} was due at ${formatTime(slot)}, but the bot was not running then, so it did not run: ${excerpt(job.prompt)}`);
      return;
    }
    if (await pausedForLostChat(job, slot, key, now)) return;
    const nextRunAt = nextSlotAfter(job, now);
    if (options.creatorAllowed && !(await options.creatorAllowed(job.platform, job.creatorId))) {
      // Skipped, not removed: the job runs again if its creator is approved again, and the operator still sees it.
      if (await store.cronJobs.advance(job.id, slot, { nextRunAt, lastRunAt: now, lastStatus: "skipped" })) {
        logger.warn("a scheduled task's slot was skipped: its creator is no longer allowed to use the bot", { jobId: job.id, slot });
      }
      return;
    }
    const overBudget = (await options.overBudget?.(job.platform, job.creatorId, now)) ?? false;
    if (overBudget && job.lastStatus === "over_budget" && job.lastRunAt !== undefined && utcDayOf(job.lastRunAt) === utcDayOf(now)) {
      await store.cronJobs.advance(job.id, slot, { nextRunAt, lastRunAt: now, lastStatus: "over_budget" });
      return;
    }
    // The slot's message is saved before the slot is claimed, so a crash in between leaves it to the start-up's
    // recovery instead of losing the run; its id makes a second save of the slot (another scheduler's) a no-op.
    const recorded = await recordSlot(job, slot, key, now);
    const own = recorded.record.status === "queued" || recorded.record.status === "running" ? 1 : 0;
    // A run never overlaps the previous run of the same job.
    const busy = (await store.inbound.unanswered(key)) - own > 0;
    const took = await store.cronJobs.advance(job.id, slot, { nextRunAt, lastRunAt: now, lastStatus: busy ? "skipped" : overBudget ? "over_budget" : "ran" });
    const skipped = took ? busy : (await store.cronJobs.get(job.id))?.lastStatus === "skipped";
    if (skipped) {
      // Whoever saved the slot's message takes it back; one a crashed scheduler saved is left to the recovery.
      if (recorded.created) await store.inbound.setStatus(recorded.record.id, "cancelled");
      if (took) logger.info("a scheduled task's slot was skipped: its previous run is still going", { jobId: job.id, slot });
      return;
    }
    if (!took || recorded.record.status !== "queued") return;
    await freshSession(job, key, JSON.parse(recorded.record.payload) as InboundMessage, now);
    await options.queue.enqueue({ inboundId: recorded.record.id, sessionKey: key });
    logger.info("a scheduled task started a run", { jobId: job.id, slot, inboundId: recorded.record.id, sessionKey: key });
  };

  /**
   * Pauses a job whose last replies all failed for good instead of paying for another run nobody will read. Paused,
   * not removed: the operator and the chat still see it (and why) until it is removed.
   */
  const pausedForLostChat = async (job: CronJobRecord, slot: number, key: string, now: number): Promise<boolean> => {
    const outcomes = await store.deliveries.lastFinalOutcomes(key, FAILED_REPLIES_TO_PAUSE);
    if (outcomes.length < FAILED_REPLIES_TO_PAUSE || outcomes.some((outcome) => outcome.status !== "failed")) return false;
    if (await store.cronJobs.advance(job.id, slot, { nextRunAt: null, lastRunAt: now, lastStatus: "paused" })) {
      logger.warn(`a scheduled task was paused: its last ${FAILED_REPLIES_TO_PAUSE} answers could not be delivered to its chat`, {
        jobId: job.id,
        platform: job.platform,
        chatId: job.chatId,
        lastDeliveryError: outcomes[0]?.lastError,
      });
    }
    return true;
  };

  /** Each run is a fresh conversation; the previous run is over (nothing else of the key is unanswered). */
  const freshSession = async (job: CronJobRecord, key: string, message: InboundMessage, now: number): Promise<void> => {
    const base = { timestamp: now, sessionKey: key, platform: job.platform, chatId: job.chatId, userId: job.creatorId };
    const ended = await store.sessions.end(key);
    if (ended) await options.hooks?.emit({ ...base, type: "session:end", sessionId: ended.id, reason: "cron" });
    const { session, created } = await store.sessions.getOrCreateActive(newSessionFor(message, key));
    if (created) await options.hooks?.emit({ ...base, type: "session:start", sessionId: session.id });
  };

  const recordSlot = (job: CronJobRecord, slot: number, key: string, now: number) => {
    const message: InboundMessage = {
      platform: job.platform,
      chat: { id: job.chatId, type: job.chatType },
      ...(job.threadId !== undefined && { threadId: job.threadId }),
      user: { id: job.creatorId },
      messageId: cronMessageId(job.id, slot),
      text: `(Scheduled task ${job.id}, ${job.schedule}.)\n${job.prompt}`,
      attachments: [],
      mentionedBot: false,
      timestamp: now,
      // No message of the person's to quote: the reply stands on its own, also in groups.
      replyToId: "",
    };
    return store.inbound.recordIfNew({ platform: job.platform, messageId: message.messageId, payload: JSON.stringify(message), sessionKey: key, status: "queued" });
  };

  const tellChat = async (job: CronJobRecord, text: string): Promise<void> => {
    await store.deliveries.enqueue({ platform: job.platform, chatId: job.chatId, ...(job.threadId !== undefined && { threadId: job.threadId }), sessionKey: job.sessionKey, text, kind: "notice" });
  };

  return {
    tick: async () => {
      await look();
    },
    start: () => {
      if (running) return;
      running = true;
      unsubscribe = onCronJobsChanged(wake);
      wake();
    },
    stop: async () => {
      running = false;
      unsubscribe?.();
      cancelTimer?.();
      await looking;
    },
  };
}

function excerpt(prompt: string): string {
  return prompt.length > 120 ? `${prompt.slice(0, 119)}…` : prompt;
}
