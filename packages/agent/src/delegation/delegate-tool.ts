import { Type } from "@sinclair/typebox";
import type { LoopDeps } from "../loop/loop-deps.js";
import type { Logger } from "../observability/logger.js";
import { defineTool, type AnyToolDefinition, type ToolResult } from "../tools/types.js";
import { runSubagent, type SubagentOutcome } from "./subagent-runner.js";
import { delegatedTaskKey, subagentRunId } from "./subagent-identity.js";
import { subagentTools } from "./subagent-tools.js";
import { DEFAULT_SUBAGENT_MAX_STEPS, DELEGATE_TASK_TOOL_NAME, MAX_DELEGATED_TASKS, type DelegatedTask, type DelegationConfig, type SubagentRun } from "./types.js";

const parameters = Type.Object({
  tasks: Type.Array(
    Type.Object({
      goal: Type.String({ minLength: 1, description: "What the sub-agent must achieve, stated so it can work alone." }),
      context: Type.Optional(Type.String({ description: "What it needs to know: facts, names, constraints. It sees nothing of this conversation." })),
      tools: Type.Optional(Type.Array(Type.String(), { description: "Only these of your tools (default: all you have but delegate_task, memory and skill_manage)." })),
    }),
    { minItems: 1, maxItems: MAX_DELEGATED_TASKS, description: `1 to ${MAX_DELEGATED_TASKS} independent tasks; they run in parallel.` },
  ),
});

const GOAL_HEADING_CHARS = 200;

/**
 * The run's `delegate_task`: it reads the parent's loop (model, tools, budget, callbacks, usage) when called, so a
 * fallback switch or a scoped memory tool of this run is what its sub-agents see.
 */
export function delegateTaskTool(config: DelegationConfig, parentRun: () => LoopDeps): AnyToolDefinition {
  const maxSteps = config.maxSteps ?? DEFAULT_SUBAGENT_MAX_STEPS;
  return defineTool({
    name: DELEGATE_TASK_TOOL_NAME,
    description:
      `Hand 1 to ${MAX_DELEGATED_TASKS} independent tasks to sub-agents that work in parallel, each in a fresh context with ` +
      `your tools (not delegate_task, memory or skill_manage) and at most ${maxSteps} steps, and get back each one's summary.`,
    guidance:
      "Use delegate_task for independent pieces of research or work that each need several tool calls, so they run " +
      "in parallel and keep their intermediate results out of this conversation. A sub-agent knows only its goal and " +
      "context: put everything it needs there. Do simple lookups yourself.",
    parameters,
    concurrency: "never-parallel",
    // Not the per-call tool timeout: the sub-agents run many calls of their own, bounded by the run's time budget.
    timeoutMs: Number.POSITIVE_INFINITY,
    handler: async (args, context): Promise<ToolResult> => {
      const parent = parentRun();
      const started = parent.now();
      const runs = await Promise.all(args.tasks.map(async (task, index) => {
        const { tools, ignored } = subagentTools(parent.tools, task.tools);
        const key = delegatedTaskKey(context.toolCallId, index, task);
        // Its tool calls are checkpointed with the parent run's: a replay of this call reuses what they did.
        const checkpoints = parent.checkpoints?.scoped?.(key);
        const outcome = await runSubagent(task, { parent, tools, maxSteps, signal: context.signal, position: index + 1, checkpoints });
        const run = lineageOf(task, outcome, {
          id: subagentRunId(context.sessionId, key, outcome.status),
          parentSessionId: context.sessionId,
          parentToolCallId: context.toolCallId,
          startedAt: started,
          endedAt: parent.now(),
        });
        await recordLineage(config, run, context.logger);
        return { task, outcome, ignored };
      }));
      const sections = runs.map(({ task, outcome, ignored }, index) => section(index + 1, task, outcome, ignored));
      return {
        content: sections.join("\n\n"),
        isError: runs.every(({ outcome }) => outcome.status !== "done"),
        details: { tasks: runs.map(({ outcome }) => ({ status: outcome.status, steps: outcome.steps, usage: outcome.usage })) },
      };
    },
  });
}

function section(position: number, task: DelegatedTask, outcome: SubagentOutcome, ignored: readonly string[]): string {
  const body =
    outcome.status === "done" ? (outcome.summary.trim() || "(no summary)")
      : outcome.status === "stopped" ? "Stopped: the run was stopped before this task finished."
        : `Failed: ${outcome.summary}`;
  const note = ignored.length > 0 ? `\n\n(Note: tools not available to sub-agents were ignored: ${ignored.join(", ")}.)` : "";
  return `## Task ${position}: ${headingOf(task.goal)}\n${body}${note}`;
}

function headingOf(goal: string): string {
  const line = goal.replace(/\s+/g, " ").trim();
  return line.length > GOAL_HEADING_CHARS ? `${line.slice(0, GOAL_HEADING_CHARS - 1)}…` : line;
}

function lineageOf(
  task: DelegatedTask,
  outcome: SubagentOutcome,
  ids: { id: string; parentSessionId: string; parentToolCallId: string; startedAt: number; endedAt: number },
): SubagentRun {
  return {
    ...ids,
    goal: task.goal,
    status: outcome.status,
    summary: outcome.summary,
    steps: outcome.steps,
    inputTokens: outcome.usage.input,
    outputTokens: outcome.usage.output,
    costUsd: outcome.usage.costUsd,
  };
}

/** The lineage is a record for the operator; failing to keep it must not cost the person their answer. */
async function recordLineage(config: DelegationConfig, run: SubagentRun, logger: Logger): Promise<void> {
  if (!config.lineage) return;
  try {
    await config.lineage.record(run);
  } catch (error) {
    logger.error("sub-agent lineage not recorded", { subagentRunId: run.id, error });
  }
}
