import type { Usage, UserMessage } from "@mariozechner/pi-ai";
import { context as contexts, SpanKind } from "@opentelemetry/api";
import { BudgetTracker } from "../loop/budget.js";
import type { LoopDeps } from "../loop/loop-deps.js";
import { runAgentLoop } from "../loop/run-loop.js";
import { CostTracker, type ModelRef, type UsageTotals } from "../observability/cost.js";
import { markFailed, startChildSpan } from "../observability/tracer.js";
import { GEN_AI, HERMES_ATTRIBUTES, SPAN_NAMES } from "../observability/tracer-names.js";
import type { ToolCheckpoints } from "../tools/checkpoints.js";
import type { AnyToolDefinition } from "../tools/types.js";
import type { DelegatedTask, SubagentRunStatus } from "./types.js";

const SUBAGENT_PROMPT = [
  "You are a sub-agent: another agent handed you one task. Work on it with the tools you have, then reply with a",
  "concise summary of what you found or did; your final reply is all the other agent gets back. You cannot ask",
  "questions: when something is missing or fails, say so in the summary instead of guessing.",
].join(" ");

/** Even a parent run nearly out of time gives its sub-agents a moment, which its own deadline still cuts short. */
const MIN_WALL_TIME_MS = 1_000;

export interface SubagentOutcome {
  status: SubagentRunStatus;
  /** Its final text; for a failure, why. */
  summary: string;
  steps: number;
  usage: UsageTotals;
}

export interface SubagentOptions {
  /** The parent run's loop, whose model, retry policy, callbacks, result budget and clock the sub-agent shares. */
  parent: LoopDeps;
  tools: readonly AnyToolDefinition[];
  maxSteps: number;
  /** The delegate_task call's signal: the parent's stop, its deadline and the call's timeout. */
  signal: AbortSignal;
  /** 1-based, for logs. */
  position: number;
  /** The parent run's checkpoints, scoped to this task (see ToolCheckpoints.scoped). */
  checkpoints?: ToolCheckpoints;
}

/** Runs one delegated task in a fresh context; every way it can end is an outcome, never a throw. */
export async function runSubagent(task: DelegatedTask, options: SubagentOptions): Promise<SubagentOutcome> {
  const { parent } = options;
  const logger = parent.logger.child({ subagent: options.position });
  const remainingMs = Math.max(MIN_WALL_TIME_MS, parent.budget.limits.maxWallTimeMs - parent.budget.elapsedMs());
  const budget = new BudgetTracker({ ...parent.budget.limits, maxSteps: options.maxSteps, maxWallTimeMs: remainingMs }, parent.now);
  const deadline = AbortSignal.timeout(remainingMs);
  const cost = new SharedCostTracker(parent.cost);
  // Under the delegate_task call's execute_tool span, which is active while the tool's handler runs.
  const { span, scope } = startChildSpan({ tracer: parent.spans.tracer, context: contexts.active() }, SPAN_NAMES.invokeAgent, {
    kind: SpanKind.INTERNAL,
    attributes: { [GEN_AI.operationName]: "invoke_agent", [GEN_AI.conversationId]: parent.sessionId, [GEN_AI.requestModel]: parent.state.binding.model.id },
  });
  const input: UserMessage = { role: "user", content: taskText(task), timestamp: parent.now() };
  try {
    const outcome = await runAgentLoop([], input, {
      ...parent,
      state: { binding: parent.state.binding, authFailures: 0, ...(parent.state.onFallback ? { onFallback: true } : {}) },
      systemPrompt: systemPromptFor(options.tools),
      tools: options.tools,
      budget,
      logger,
      // Gates only: the sub-agent's calls pass the same tool:before hooks and approvals; its text is not the reply.
      callbacks: { onToolStart: parent.callbacks.onToolStart, onToolEnd: parent.callbacks.onToolEnd },
      ephemeralContext: undefined,
      signal: AbortSignal.any([options.signal, deadline]),
      deadline,
      // Anything from outside (a /stop, the parent's own deadline, the call's timeout) ends the sub-agent as stopped.
      stopSignal: options.signal,
      compress: undefined,
      compressor: undefined,
      spans: scope,
      cost,
      checkpoints: options.checkpoints,
    });
    span.setAttributes({ [HERMES_ATTRIBUTES.stopReason]: outcome.stopReason, [HERMES_ATTRIBUTES.steps]: budget.steps });
    if (outcome.stopReason === "ABORT") return { status: "stopped", summary: "Stopped before it finished.", steps: budget.steps, usage: cost.totals() };
    if (outcome.error) {
      markFailed(span, outcome.error.errorClass, outcome.error.message);
      return { status: "failed", summary: outcome.error.userMessage, steps: budget.steps, usage: cost.totals() };
    }
    return { status: "done", summary: outcome.text, steps: budget.steps, usage: cost.totals() };
  } catch (error) {
    markFailed(span, error instanceof Error ? error.name : "exception", error);
    logger.error("sub-agent crashed", { error });
    return { status: "failed", summary: `the sub-agent crashed (${error instanceof Error ? error.message : String(error)})`, steps: budget.steps, usage: cost.totals() };
  } finally {
    span.end();
  }
}

function taskText(task: DelegatedTask): string {
  const context = task.context?.trim();
  return context ? `Goal: ${task.goal}\n\nContext:\n${context}` : `Goal: ${task.goal}`;
}

function systemPromptFor(tools: readonly AnyToolDefinition[]): string {
  const guidance = tools.flatMap((tool) => (tool.guidance ? [`- ${tool.name}: ${tool.guidance}`] : []));
  return guidance.length === 0 ? SUBAGENT_PROMPT : `${SUBAGENT_PROMPT}\n\nTools:\n${guidance.join("\n")}`;
}

/** Counts into the parent run's totals as it goes, so a sub-agent cut off by a stop is still paid for. */
class SharedCostTracker extends CostTracker {
  constructor(private readonly parentCost: CostTracker) {
    super();
  }

  override add(usage: Usage, model: ModelRef): void {
    super.add(usage, model);
    this.parentCost.add(usage, model);
  }
}
