/** How a sub-agent's work ended: its summary came back, it failed (the provider, a bug), or the run was stopped. */
export type SubagentRunStatus = "done" | "failed" | "stopped";

/** One sub-agent a `delegate_task` call started: what the lineage port records. */
export interface SubagentRun {
  id: string;
  /** The session of the run that delegated. */
  parentSessionId: string;
  /** The `delegate_task` call it answered. */
  parentToolCallId: string;
  goal: string;
  status: SubagentRunStatus;
  /** Its final text, or why it failed. */
  summary: string;
  steps: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  startedAt: number;
  endedAt: number;
}

/** Where the lineage of delegation goes (the gateway passes its store's `subagentRuns`). */
export interface SubagentLineage {
  record(run: SubagentRun): Promise<void>;
}

/** Turns `delegate_task` on for every run of an agent. */
export interface DelegationConfig {
  /** Step budget of each sub-agent (default 20). */
  maxSteps?: number;
  lineage?: SubagentLineage;
}

/** One task the model hands to a sub-agent. */
export interface DelegatedTask {
  goal: string;
  context?: string;
  /** Narrows the tools the sub-agent gets; names it may not have are ignored with a note. */
  tools?: string[];
}

export const DELEGATE_TASK_TOOL_NAME = "delegate_task";
export const DEFAULT_SUBAGENT_MAX_STEPS = 20;
export const MAX_DELEGATED_TASKS = 3;
