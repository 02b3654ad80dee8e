import { createHash } from "node:crypto";
import { callKey } from "../tools/call-key.js";
import { DELEGATE_TASK_TOOL_NAME, type DelegatedTask, type SubagentRunStatus } from "./types.js";

/**
 * Names one task of one delegate_task call alike in every attempt of a run: a run replayed after a crash takes the
 * parent's recorded step, so the call keeps its id, and the task its place and text. The task's text is part of it
 * because a provider that numbers calls itself ("call_0") repeats an id for another delegation.
 */
export function delegatedTaskKey(parentToolCallId: string, index: number, task: DelegatedTask): string {
  const identity = { parentToolCallId, index, goal: task.goal, context: task.context, tools: task.tools };
  return sha256(callKey(DELEGATE_TASK_TOOL_NAME, identity)).slice(0, 32);
}

/**
 * The lineage id of a task's sub-agent: derived, not random, so that a replayed run records the same sub-agent under
 * the same id and the store's record (which keeps the first of an id) does not list it twice. The session is part of
 * it so equal call ids of two conversations never meet. A stopped sub-agent gets an id of its own: a run cut off by a
 * shutdown is taken up again, and the record that its first attempt stopped must not hide how the replay ended.
 * Shaped as an RFC 9562 version 8 (custom) UUID.
 */
export function subagentRunId(parentSessionId: string, taskKey: string, status: SubagentRunStatus): string {
  const hex = sha256(`${parentSessionId}\n${taskKey}${status === "stopped" ? "\nstopped" : ""}`);
  const variant = ((Number.parseInt(hex[16] ?? "0", 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");
