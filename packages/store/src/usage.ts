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

export interface UsageRepository {
  /** Adds one run's figures to the session's totals. */
  add(sessionId: string, run: RunUsage): Promise<void>;
  /** Zeros when the session has none. */
  forSession(sessionId: string): Promise<UsageRecord>;
  /** Totals over every session of the user on that platform. */
  forUser(platform: string, userId: string): Promise<UsageTotals>;
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
