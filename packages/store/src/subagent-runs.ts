import type { Selectable } from "kysely";
import type { SubagentRunsTable } from "./database.js";
import type { StoreContext } from "./store-context.js";
import type { SubagentRunRecord, SubagentRunStatus } from "./types.js";

/** The lineage of delegation: which sub-agents a session's runs started, and how each ended. */
export interface SubagentRunRepository {
  /** Idempotent: a run taken up again after a crash may record the same sub-agent twice; the first record stays. */
  record(run: SubagentRunRecord): Promise<void>;
  /** The session's sub-agents, in the order they started. */
  listForSession(parentSessionId: string): Promise<SubagentRunRecord[]>;
}

export function createSubagentRunRepository(ctx: StoreContext): SubagentRunRepository {
  const { db, exec } = ctx;
  return {
    async record(run) {
      await exec.run(
        db
          .insertInto("subagent_runs")
          .values({
            id: run.id,
            parent_session_id: run.parentSessionId,
            parent_tool_call_id: run.parentToolCallId,
            goal: run.goal,
            status: run.status,
            summary: run.summary,
            steps: run.steps,
            input_tokens: run.inputTokens,
            output_tokens: run.outputTokens,
            cost_usd: run.costUsd,
            started_at: run.startedAt,
            ended_at: run.endedAt,
          })
          .onConflict((oc) => oc.column("id").doNothing()),
      );
    },

    async listForSession(parentSessionId) {
      const rows = await exec.all(
        db.selectFrom("subagent_runs").selectAll().where("parent_session_id", "=", parentSessionId).orderBy("started_at").orderBy("id"),
      );
      return rows.map(toSubagentRunRecord);
    },
  };
}

function toSubagentRunRecord(row: Selectable<SubagentRunsTable>): SubagentRunRecord {
  return {
    id: row.id,
    parentSessionId: row.parent_session_id,
    parentToolCallId: row.parent_tool_call_id,
    goal: row.goal,
    status: row.status as SubagentRunStatus,
    summary: row.summary,
    steps: row.steps,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    costUsd: row.cost_usd,
    startedAt: row.started_at,
    endedAt: row.ended_at,
  };
}
