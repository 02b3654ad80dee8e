import { sql } from "kysely";
import { isPostgres } from "./dialect.js";
import { preparedQuery, type Param } from "./prepared-query.js";
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
      await addUsage(ctx, sessionId, run);
    },

    async forSession(sessionId) {
      const row = await exec.first(
        db
          .selectFrom("usage")
          .select(["runs", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "cost_usd"])
          .where("session_id", "=", sessionId),
      );
      return { sessionId, ...toTotals(row) };
    },

    async forUser(platform, userId) {
      // On PostgreSQL sum() of a bigint is numeric, which node-postgres hands over as a string: cast to a number type.
      const total = (column: "runs" | "input_tokens" | "output_tokens" | "cache_read_tokens" | "cache_write_tokens") =>
        sql<number>`coalesce(sum(${sql.ref(`usage.${column}`)}), 0)${isPostgres(db) ? sql`::bigint` : sql``}`.as(column);
      const row = await exec.first(
        db
          .selectFrom("usage")
          .innerJoin("sessions", "sessions.id", "usage.session_id")
          .select((eb) => [
            total("runs"),
            total("input_tokens"),
            total("output_tokens"),
            total("cache_read_tokens"),
            total("cache_write_tokens"),
            eb.fn.coalesce(eb.fn.sum<number>("usage.cost_usd"), eb.lit(0)).as("cost_usd"),
          ])
          .where("sessions.platform", "=", platform)
          .where("sessions.user_id", "=", userId),
      );
      return toTotals(row);
    },

    async forUserOnDay(owner, day) {
      const row = await exec.first(dailyOfUser(db, { platform: owner.platform, userId: owner.userId, day }));
      return { day, runs: row?.runs ?? 0, tokens: row?.tokens ?? 0, costUsd: row?.cost_usd ?? 0 };
    },
  };
}

export async function addUsage(ctx: StoreContext, sessionId: string, run: RunUsage): Promise<void> {
  await ctx.exec.run(
    upsertUsage(ctx.db, {
      sessionId,
      inputTokens: run.inputTokens,
      outputTokens: run.outputTokens,
      cacheReadTokens: run.cacheReadTokens,
      cacheWriteTokens: run.cacheWriteTokens,
      costUsd: run.costUsd,
      now: ctx.now(),
    }),
  );
}

/** Adds one run to its owner's total for today (the store clock's UTC day). */
export async function addDailyUsage(ctx: StoreContext, owner: UsageOwner, run: RunUsage): Promise<void> {
  const now = ctx.now();
  await ctx.exec.run(
    upsertDailyUsage(ctx.db, {
      platform: owner.platform,
      userId: owner.userId,
      day: utcDayOf(now),
      costUsd: run.costUsd,
      tokens: run.inputTokens + run.outputTokens + run.cacheReadTokens + run.cacheWriteTokens,
      now,
    }),
  );
}

// Every finished run adds its usage; a daily budget reads the day's total before each run (prepared-query.ts).
const upsertUsage = preparedQuery((db, p: Param<RunUsage & { sessionId: string; now: number }>) =>
  db
    .insertInto("usage")
    .values({
      session_id: p("sessionId"),
      runs: 1,
      input_tokens: p("inputTokens"),
      output_tokens: p("outputTokens"),
      cache_read_tokens: p("cacheReadTokens"),
      cache_write_tokens: p("cacheWriteTokens"),
      cost_usd: p("costUsd"),
      updated_at: p("now"),
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
const upsertDailyUsage = preparedQuery((db, p: Param<UsageOwner & { day: string; costUsd: number; tokens: number; now: number }>) =>
  db
    .insertInto("user_daily_usage")
    .values({
      platform: p("platform"),
      user_id: p("userId"),
      day: p("day"),
      cost_usd: p("costUsd"),
      runs: 1,
      tokens: p("tokens"),
      updated_at: p("now"),
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
const dailyOfUser = preparedQuery((db, p: Param<UsageOwner & { day: string }>) =>
  db
    .selectFrom("user_daily_usage")
    .select(["runs", "tokens", "cost_usd"])
    .where("platform", "=", p("platform"))
    .where("user_id", "=", p("userId"))
    .where("day", "=", p("day")),
);

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
