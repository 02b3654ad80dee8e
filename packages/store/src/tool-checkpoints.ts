import type { Selectable } from "kysely";
import type { ToolCheckpointsTable } from "./database.js";
import { isPostgres } from "./dialect.js";
import { preparedQuery, type Param } from "./prepared-query.js";
import type { SqlRunner } from "./sql-runner.js";
import type { StoreContext } from "./store-context.js";
import { OPEN_INBOUND_STATUSES } from "./types.js";

/** A finished tool call of a run, as the agent core's checkpoint port hands it over and gets it back. */
export interface ToolCheckpoint {
  /** The loop step (model turn) of the call, counted from 1 in each attempt of the run. */
  step: number;
  /** The call's place among the tool calls of its model response. */
  position: number;
  toolCallId: string;
  toolName: string;
  /** Hash of the canonical arguments: equal arguments, whatever their key order, hash alike. */
  argumentsHash: string;
  status: string;
  result: { content: string; isError?: boolean; details?: Record<string, unknown> };
  durationMs: number;
}

export interface NewToolCheckpoint extends ToolCheckpoint {
  inboundId: number;
}

/** A step's model reply; `message` is whatever JSON was saved, for the agent core to check before using it. */
export interface RunStep {
  step: number;
  message: unknown;
}

export interface ToolCheckpointRepository {
  /**
   * Saves one finished call while its run is still open (the inbound is queued or running); a call that finishes
   * after its run was completed elsewhere is not saved, since nothing will replay it.
   */
  record(checkpoint: NewToolCheckpoint): Promise<{ saved: boolean }>;
  /** The run's saved calls in the order they were saved. */
  forRun(inboundId: number): Promise<ToolCheckpoint[]>;
  /**
   * Saves a step's model reply while the run is open. It replaces that step and every later one: a step asked afresh
   * starts a new path, and replies saved for later steps of the old path must not be replayed after it.
   */
  recordStep(step: RunStep & { inboundId: number }): Promise<{ saved: boolean }>;
  /** The run's saved model replies by step; unreadable ones are left out. */
  stepsForRun(inboundId: number): Promise<RunStep[]>;
}


export function createToolCheckpointRepository(ctx: StoreContext): ToolCheckpointRepository {
  const { db, exec } = ctx;
  const isOpen = async (tx: SqlRunner, inboundId: number, query = openInbound): Promise<boolean> => (await tx.first(query(db, { inboundId }))) !== undefined;
  return {
    async record(checkpoint) {
      return exec.write(async (tx) => {
        if (!(await isOpen(tx, checkpoint.inboundId))) return { saved: false };
        await tx.run(
          insertCheckpoint(db, {
            inboundId: checkpoint.inboundId,
            step: checkpoint.step,
            position: checkpoint.position,
            toolCallId: checkpoint.toolCallId,
            toolName: checkpoint.toolName,
            argumentsHash: checkpoint.argumentsHash,
            status: checkpoint.status,
            result: JSON.stringify(checkpoint.result),
            durationMs: Math.max(0, Math.round(checkpoint.durationMs)),
            now: ctx.now(),
          }),
        );
        return { saved: true };
      });
    },

    async recordStep({ inboundId, step, message }) {
      return exec.write(async (tx) => {
        if (!(await isOpen(tx, inboundId, openInboundExclusive))) return { saved: false };
        await tx.run(deleteStepsFrom(db, { inboundId, step }));
        await tx.run(insertStep(db, { inboundId, step, message: JSON.stringify(message), now: ctx.now() }));
        return { saved: true };
      });
    },

    async stepsForRun(inboundId) {
      const rows = await exec.all(stepsOfRun(db, { inboundId }));
      const steps: RunStep[] = [];
      for (const row of rows) {
        try {
          steps.push({ step: row.step, message: JSON.parse(row.message) as unknown });
        } catch {
          ctx.logger.warn("unreadable run step skipped", { inboundId, step: row.step });
        }
      }
      return steps;
    },

    async forRun(inboundId) {
      const rows = await exec.all(checkpointsOfRun(db, { inboundId }));
      const checkpoints: ToolCheckpoint[] = [];
      for (const row of rows) {
        const checkpoint = toToolCheckpoint(row);
        // A damaged row only costs a replay: the call runs again rather than the run failing.
        if (checkpoint === undefined) ctx.logger.warn("unreadable tool checkpoint skipped", { inboundId, checkpointId: row.id });
        else checkpoints.push(checkpoint);
      }
      return checkpoints;
    },
  };
}

/**
 * Runs inside completeRun's transaction (its `tx` as `ctx.exec`): a finished run's checkpoints and recorded steps
 * have done their job.
 */
export async function clearToolCheckpoints(ctx: StoreContext, inboundId: number): Promise<void> {
  await ctx.exec.run(deleteCheckpoints(ctx.db, { inboundId }));
  await ctx.exec.run(deleteSteps(ctx.db, { inboundId }));
}

// Every run records its steps and every finished run clears them (prepared-query.ts).
// On PostgreSQL the row is share-locked until the save commits, so completeRun (which closes the inbound and clears
// its checkpoints) waits for a save in progress instead of leaving its checkpoint behind.
const openInbound = preparedQuery((db, p: Param<{ inboundId: number }>) =>
  db
    .selectFrom("inbound")
    .select("id")
    .where("id", "=", p("inboundId"))
    .where("status", "in", OPEN_INBOUND_STATUSES)
    .$if(isPostgres(db), (query) => query.forShare()),
);
// A step replaces the run's steps from it on (delete, then insert): two saves of one run at once (a worker that lost
// its lease and its successor) would both delete and then both insert the same step, and the second insert would fail
// on the unique (inbound_id, step). Locking the row exclusively makes them take turns, as SQLite's write lock does.
const openInboundExclusive = preparedQuery((db, p: Param<{ inboundId: number }>) =>
  db
    .selectFrom("inbound")
    .select("id")
    .where("id", "=", p("inboundId"))
    .where("status", "in", OPEN_INBOUND_STATUSES)
    .$if(isPostgres(db), (query) => query.forUpdate()),
);
const insertCheckpoint = preparedQuery(
  (
    db,
    // The checkpoint's own fields, with its result as the stored JSON.
    p: Param<Omit<ToolCheckpoint, "result"> & { inboundId: number; result: string; durationMs: number; now: number }>,
  ) =>
    db.insertInto("tool_checkpoints").values({
      inbound_id: p("inboundId"),
      step: p("step"),
      position: p("position"),
      tool_call_id: p("toolCallId"),
      tool_name: p("toolName"),
      arguments_hash: p("argumentsHash"),
      status: p("status"),
      result: p("result"),
      duration_ms: p("durationMs"),
      created_at: p("now"),
    }),
);
const deleteStepsFrom = preparedQuery((db, p: Param<{ inboundId: number; step: number }>) =>
  db.deleteFrom("run_steps").where("inbound_id", "=", p("inboundId")).where("step", ">=", p("step")),
);
const insertStep = preparedQuery((db, p: Param<{ inboundId: number; step: number; message: string; now: number }>) =>
  db.insertInto("run_steps").values({ inbound_id: p("inboundId"), step: p("step"), message: p("message"), created_at: p("now") }),
);
const stepsOfRun = preparedQuery((db, p: Param<{ inboundId: number }>) =>
  db.selectFrom("run_steps").selectAll().where("inbound_id", "=", p("inboundId")).orderBy("step"),
);
const checkpointsOfRun = preparedQuery((db, p: Param<{ inboundId: number }>) =>
  db.selectFrom("tool_checkpoints").selectAll().where("inbound_id", "=", p("inboundId")).orderBy("id"),
);
const deleteCheckpoints = preparedQuery((db, p: Param<{ inboundId: number }>) => db.deleteFrom("tool_checkpoints").where("inbound_id", "=", p("inboundId")));
const deleteSteps = preparedQuery((db, p: Param<{ inboundId: number }>) => db.deleteFrom("run_steps").where("inbound_id", "=", p("inboundId")));

function toToolCheckpoint(row: Selectable<ToolCheckpointsTable>): ToolCheckpoint | undefined {
  let result: unknown;
  try {
    result = JSON.parse(row.result);
  } catch {
    return undefined;
  }
  if (typeof result !== "object" || result === null || typeof (result as { content?: unknown }).content !== "string") return undefined;
  return {
    step: row.step,
    position: row.position,
    toolCallId: row.tool_call_id,
    toolName: row.tool_name,
    argumentsHash: row.arguments_hash,
    status: row.status,
    result: result as ToolCheckpoint["result"],
    durationMs: row.duration_ms,
  };
}
