import type { StoreContext } from "./store-context.js";
import type { UsageRecord } from "./types.js";

/** Token and cost figures of one finished run. */
export interface RunUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number;
}

export type UsageTotals = Omit<UsageRecord, "sessionId">;

/** Whose run it was: the person whose message ran, not the session (a shared thread has several people). */
export interface UsageOwner {
  platform: string;
  userId: string;
}

/** One person's spend on one UTC day. */
export interface DailyUsage {
  /** YYYY-MM-DD in UTC. */
  day: string;
  runs: number;
  /** Input, output and cache tokens together. */
  tokens: number;
  costUsd: number;
}

export interface UsageRepository {
  /** Adds one run's figures to the session's totals. */
  add(sessionId: string, run: RunUsage): Promise<void>;
  /** Zeros when the session has none. */
  forSession(sessionId: string): Promise<UsageRecord>;
  /** Totals over every session of the user on that platform. */
  forUser(platform: string, userId: string): Promise<UsageTotals>;
  /** The person's spend on the UTC day `day` (YYYY-MM-DD; see `utcDayOf`), over all their conversations. */
  forUserOnDay(owner: UsageOwner, day: string): Promise<DailyUsage>;
}

/** The UTC calendar day of a timestamp, as the daily usage rows are keyed. */
export function utcDayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function createUsageRepository(ctx: StoreContext): UsageRepository {
  const { db, exec } = ctx;
  return {
    async add(sessionId, run) {
      addUsage(ctx, sessionId, run);
    },

    async forSession(sessionId) {
      const row = exec.first(
        db
          .selectFrom("usage")
          .select(["runs", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "cost_usd"])
          .where("session_id", "=", sessionId),
      );
      return { sessionId, ...toTotals(row) };
    },

    async forUser(platform, userId) {
      const row = exec.first(
        db
          .selectFrom("usage")
          .innerJoin("sessions", "sessions.id", "usage.session_id")
          .select((eb) => [
            eb.fn.coalesce(eb.fn.sum<number>("usage.runs"), eb.lit(0)).as("runs"),
            eb.fn.coalesce(eb.fn.sum<number>("usage.input_tokens"), eb.lit(0)).as("input_tokens"),
            eb.fn.coalesce(eb.fn.sum<number>("usage.output_tokens"), eb.lit(0)).as("output_tokens"),
            eb.fn.coalesce(eb.fn.sum<number>("usage.cache_read_tokens"), eb.lit(0)).as("cache_read_tokens"),
            eb.fn.coalesce(eb.fn.sum<number>("usage.cache_write_tokens"), eb.lit(0)).as("cache_write_tokens"),
            eb.fn.coalesce(eb.fn.sum<number>("usage.cost_usd"), eb.lit(0)).as("cost_usd"),
          ])
          .where("sessions.platform", "=", platform)
          .where("sessions.user_id", "=", userId),
      );
      return toTotals(row);
    },

    async forUserOnDay(owner, day) {
      const row = exec.first(
        db
          .selectFrom("user_daily_usage")
          .select(["runs", "tokens", "cost_usd"])
          .where("platform", "=", owner.platform)
          .where("user_id", "=", owner.userId)
          .where("day", "=", day),
      );
      return { day, runs: row?.runs ?? 0, tokens: row?.tokens ?? 0, costUsd: row?.cost_usd ?? 0 };
    },
  };
}

export function addUsage(ctx: StoreContext, sessionId: string, run: RunUsage): void {
  ctx.exec.run(
    ctx.db
      .insertInto("usage")
      .values({
        session_id: sessionId,
        runs: 1,
        input_tokens: run.inputTokens,
        output_tokens: run.outputTokens,
        cache_read_tokens: run.cacheReadTokens,
        cache_write_tokens: run.cacheWriteTokens,
        cost_usd: run.costUsd,
        updated_at: ctx.now(),
      })
      .onConflict((oc) =>
        oc.column("session_id").doUpdateSet((eb) => ({
          runs: eb("usage.runs", "+", 1),
          input_tokens: eb("usage.input_tokens", "+", eb.ref("excluded.input_tokens")),
          output_tokens: eb("usage.output_tokens", "+", eb.ref("excluded.output_tokens")),
          cache_read_tokens: eb("usage.cache_read_tokens", "+", eb.ref("excluded.cache_read_tokens")),
          cache_write_tokens: eb("usage.cache_write_tokens", "+", eb.ref("excluded.cache_write_tokens")),
          cost_usd: eb("usage.cost_usd", "+", eb.ref("excluded.cost_usd")),
          updated_at: eb.ref("excluded.updated_at"),
        })),
      ),
  );
}

/** Adds one run to its owner's total for today (the store clock's UTC day). */
export function addDailyUsage(ctx: StoreContext, owner: UsageOwner, run: RunUsage): void {
  const now = ctx.now();
  ctx.exec.run(
    ctx.db
      .insertInto("user_daily_usage")
      .values({
        platform: owner.platform,
        user_id: owner.userId,
        day: utcDayOf(now),
        cost_usd: run.costUsd,
        runs: 1,
        tokens: run.inputTokens + run.outputTokens + run.cacheReadTokens + run.cacheWriteTokens,
        updated_at: now,
      })
      .onConflict((oc) =>
        oc.columns(["platform", "user_id", "day"]).doUpdateSet((eb) => ({
          cost_usd: eb("user_daily_usage.cost_usd", "+", eb.ref("excluded.cost_usd")),
          runs: eb("user_daily_usage.runs", "+", 1),
          tokens: eb("user_daily_usage.tokens", "+", eb.ref("excluded.tokens")),
          updated_at: eb.ref("excluded.updated_at"),
        })),
      ),
  );
}

interface UsageColumns {
  runs: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number;
}

function toTotals(row: UsageColumns | undefined): UsageTotals {
  return {
    runs: row?.runs ?? 0,
    inputTokens: row?.input_tokens ?? 0,
    outputTokens: row?.output_tokens ?? 0,
    cacheReadTokens: row?.cache_read_tokens ?? 0,
    cacheWriteTokens: row?.cache_write_tokens ?? 0,
    costUsd: row?.cost_usd ?? 0,
  };
}
