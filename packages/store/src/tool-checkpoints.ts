import type { Selectable } from "kysely";
import type { ToolCheckpointsTable } from "./database.js";
import type { StoreContext } from "./store-context.js";
import type { InboundStatus } from "./types.js";

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

const OPEN_STATUSES: InboundStatus[] = ["queued", "running"];

export function createToolCheckpointRepository(ctx: StoreContext): ToolCheckpointRepository {
  const { db, exec } = ctx;
  return {
    async record(checkpoint) {
      return exec.write(() => {
        const open = exec.first(db.selectFrom("inbound").select("id").where("id", "=", checkpoint.inboundId).where("status", "in", OPEN_STATUSES));
        if (open === undefined) return { saved: false };
        exec.run(
          db.insertInto("tool_checkpoints").values({
            inbound_id: checkpoint.inboundId,
            step: checkpoint.step,
            position: checkpoint.position,
            tool_call_id: checkpoint.toolCallId,
            tool_name: checkpoint.toolName,
            arguments_hash: checkpoint.argumentsHash,
            status: checkpoint.status,
            result: JSON.stringify(checkpoint.result),
            duration_ms: Math.max(0, Math.round(checkpoint.durationMs)),
            created_at: ctx.now(),
          }),
        );
        return { saved: true };
      });
    },

    async recordStep({ inboundId, step, message }) {
      return exec.write(() => {
        const open = exec.first(db.selectFrom("inbound").select("id").where("id", "=", inboundId).where("status", "in", OPEN_STATUSES));
        if (open === undefined) return { saved: false };
        exec.run(db.deleteFrom("run_steps").where("inbound_id", "=", inboundId).where("step", ">=", step));
        exec.run(db.insertInto("run_steps").values({ inbound_id: inboundId, step, message: JSON.stringify(message), created_at: ctx.now() }));
        return { saved: true };
      });
    },

    async stepsForRun(inboundId) {
      const rows = exec.all(db.selectFrom("run_steps").selectAll().where("inbound_id", "=", inboundId).orderBy("step"));
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
      const rows = exec.all(db.selectFrom("tool_checkpoints").selectAll().where("inbound_id", "=", inboundId).orderBy("id"));
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

/** Runs inside completeRun's transaction: a finished run's checkpoints and recorded steps have done their job. */
export function clearToolCheckpoints(ctx: StoreContext, inboundId: number): void {
  ctx.exec.run(ctx.db.deleteFrom("tool_checkpoints").where("inbound_id", "=", inboundId));
  ctx.exec.run(ctx.db.deleteFrom("run_steps").where("inbound_id", "=", inboundId));
}

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
