import { createHash } from "node:crypto";
import type { AssistantMessage } from "@mariozechner/pi-ai";
import { callKey } from "./call-key.js";
import { recordedAssistantMessage } from "./recorded-step.js";
import type { ToolResult } from "./types.js";

/** One tool call of a run, as the executor knows it when it is about to run it. */
export interface CheckpointedCall {
  /** The loop step (model turn), counted from 1 in every attempt of the run. */
  step: number;
  /** The call's place among the tool calls of its model response. */
  position: number;
  toolCallId: string;
  toolName: string;
  /** Validated arguments. */
  arguments: Record<string, unknown>;
}

/** Only calls whose handler ran to an end are checkpointed: blocked, invalid or cancelled calls did nothing to repeat. */
export type CheckpointedStatus = "ok" | "error" | "timeout";

export interface CheckpointedOutcome {
  status: CheckpointedStatus;
  result: ToolResult;
  durationMs: number;
}

/**
 * The executor's port to durable storage. `recorded` answers from what was loaded when the run started (so it can
 * stay synchronous); `record` must have saved the outcome when its promise resolves, because the next model call
 * waits for it.
 */
export interface ToolCheckpoints {
  recorded(call: CheckpointedCall): CheckpointedOutcome | undefined;
  record(call: CheckpointedCall, outcome: CheckpointedOutcome): Promise<void>;
  /**
   * The model reply an earlier attempt got at this step, used instead of asking the model again (so the step's calls
   * keep their ids and replay their results). Only the unbroken run of recorded steps from step 1 is replayed: once a
   * step is asked afresh, later recorded steps belong to another path and are not used.
   */
  recordedStep?(step: number): AssistantMessage | undefined;
  /** Saves a step's model reply before anything acts on it; replaces that step and any later ones saved before. */
  recordStep?(step: number, message: AssistantMessage): Promise<void>;
  /**
   * Checkpoints for the tool calls of work one call of this run hands on (a delegate_task sub-agent, `scope` naming
   * the call and task the same way in every attempt). They are saved with the run's own and match only calls of the
   * same scope: a sub-agent's `terminal` call must not replay the parent's, nor another sub-agent's.
   */
  scoped?(scope: string): ToolCheckpoints;
}

/** A model reply as the embedding application stores it; `message` is parsed JSON, checked again when read. */
export interface StoredRunStep {
  step: number;
  message: unknown;
}

/** A finished call as the embedding application stores it (the store's tool_checkpoints row). */
export interface StoredToolCheckpoint {
  step: number;
  position: number;
  toolCallId: string;
  toolName: string;
  argumentsHash: string;
  status: string;
  result: ToolResult;
  durationMs: number;
}

/** Equal arguments hash alike whatever their key order; the arguments themselves (secrets, paths) are not stored. */
export function argumentsHash(toolName: string, args: Record<string, unknown>): string {
  return createHash("sha256").update(callKey(toolName, args)).digest("hex");
}

const REPLAYABLE = new Set<string>(["ok", "error", "timeout"]);

const SCOPE_NAME = /^[A-Za-z0-9_-]+$/;
/** A scoped call is stored under `scoped:<scope>/<id>`, so the store needs no column of its own for the scope. */
const SCOPED_ID = /^scoped:([A-Za-z0-9_-]+)\//;
const ROOT_SCOPE = "";

const storedIdOf = (scope: string, toolCallId: string): string => (scope === ROOT_SCOPE ? toolCallId : `scoped:${scope}/${toolCallId}`);
const scopeOf = (storedId: string): string => SCOPED_ID.exec(storedId)?.[1] ?? ROOT_SCOPE;

/**
 * Checkpoints for one attempt of a run: `saved` is what earlier attempts of the same run recorded, `persist` saves a
 * new one.
 *
 * `steps` keeps each step's model reply: a new attempt replays them (recordedStep) instead of asking the model, so
 * its calls carry the recorded ids. Past the recorded steps (or without `steps`) the calls are new model output: a
 * provider that numbers calls itself ("call_0") repeats ids, a real one makes fresh ids every time. So a saved
 * outcome is replayed for a call that has
 *   1. the same call id, tool name and arguments, or else
 *   2. the same step, position in its response, tool name and arguments.
 * Name and arguments must always agree: a model that takes another path in the new attempt gets its new calls run.
 * Each saved outcome is replayed at most once, and calls recorded in this attempt are never replayed in it, so a
 * model that deliberately runs the same command twice (even under a repeated id) runs it twice.
 */
export function replayingCheckpoints(
  saved: readonly StoredToolCheckpoint[],
  persist: (checkpoint: StoredToolCheckpoint) => Promise<void>,
  steps?: { saved: readonly StoredRunStep[]; persist: (step: StoredRunStep) => Promise<void> },
): ToolCheckpoints {
  const savedSteps = new Map((steps?.saved ?? []).map((s) => [s.step, s.message]));
  let replayingSteps = savedSteps.size > 0;
  const unused = saved.filter((checkpoint) => REPLAYABLE.has(checkpoint.status));
  const take = (index: number): CheckpointedOutcome | undefined => {
    if (index < 0) return undefined;
    const [checkpoint] = unused.splice(index, 1);
    return checkpoint && { status: checkpoint.status as CheckpointedStatus, result: checkpoint.result, durationMs: checkpoint.durationMs };
  };
  return {
    recordedStep(step) {
      if (!replayingSteps) return undefined;
      // A malformed reply counts as missing: the model is asked, and this attempt goes its own way from there.
      const message = recordedAssistantMessage(savedSteps.get(step));
      if (!message) replayingSteps = false;
      return message;
    },
    async recordStep(step, message) {
      if (steps) await steps.persist({ step, message });
    },
    recorded: (call) => recorded(ROOT_SCOPE, call),
    record: (call, outcome) => record(ROOT_SCOPE, call, outcome),
    scoped(scope) {
      if (!SCOPE_NAME.test(scope)) throw new Error(`invalid checkpoint scope: ${JSON.stringify(scope)}`);
      // No recorded steps: the store keeps one model reply per step of the run, and a sub-agent's step 1 would replace
      // the parent's. Its model is asked again, and its calls match by step and position (rule 2 above).
      return { recorded: (call) => recorded(scope, call), record: (call, outcome) => record(scope, call, outcome) };
    },
  };

  function recorded(scope: string, call: CheckpointedCall): CheckpointedOutcome | undefined {
    const hash = argumentsHash(call.toolName, call.arguments);
    const storedId = storedIdOf(scope, call.toolCallId);
    const same = (c: StoredToolCheckpoint): boolean => scopeOf(c.toolCallId) === scope && c.toolName === call.toolName && c.argumentsHash === hash;
    const byId = unused.findIndex((c) => c.toolCallId === storedId && same(c));
    if (byId >= 0) return take(byId);
    return take(unused.findIndex((c) => c.step === call.step && c.position === call.position && same(c)));
  }

  function record(scope: string, call: CheckpointedCall, outcome: CheckpointedOutcome): Promise<void> {
    return persist({
      step: call.step,
      position: call.position,
      toolCallId: storedIdOf(scope, call.toolCallId),
      toolName: call.toolName,
      argumentsHash: argumentsHash(call.toolName, call.arguments),
      status: outcome.status,
      result: outcome.result,
      durationMs: outcome.durationMs,
    });
  }
}
