import type { Message } from "@mariozechner/pi-ai";
import type { RunCompressor } from "../context/compressor.js";
import type { ClassifiedError } from "../errors/classify.js";
import type { AgentMetrics } from "../observability/agent-metrics.js";
import type { CostTracker } from "../observability/cost.js";
import type { Logger } from "../observability/logger.js";
import type { SpanScope } from "../observability/tracer.js";
import type { ResultBudgetOptions } from "../tools/result-budget.js";
import type { ToolCheckpoints } from "../tools/checkpoints.js";
import type { AnyToolDefinition, RunCaller } from "../tools/types.js";
import type { BudgetTracker } from "./budget.js";
import type { AgentCallbacks } from "./callbacks.js";
import type { ModelBinding } from "./model-call.js";
import type { CompressMessages, ModelState, RetryPolicy } from "./resilient-call.js";
import type { RunStopReason } from "./result.js";

export interface LoopDeps {
  state: ModelState;
  fallback?: ModelBinding;
  systemPrompt: string;
  tools: readonly AnyToolDefinition[];
  budget: BudgetTracker;
  retry: RetryPolicy;
  logger: Logger;
  callbacks: AgentCallbacks;
  /** The run's signal: the caller's abort combined with the wall-time deadline. */
  signal: AbortSignal;
  /** Fires when the wall-time budget is used up (a stop for time, not the caller's abort). */
  deadline?: AbortSignal;
  /** The caller's abort alone: the summary written after the time ran out must still heed a stop. */
  stopSignal: AbortSignal;
  sessionId: string;
  caller?: RunCaller;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  random?: () => number;
  compress?: CompressMessages;
  /** Recalled memory for this turn: sent next to the user's message, never stored in the transcript. */
  ephemeralContext?: string;
  /** Proactive compression before a model call when the transcript nears the context window; it also shapes requests. */
  compressor?: RunCompressor;
  /** The run's span scope (its invoke_agent span); model calls, tools and compressions are children in it. */
  spans: SpanScope;
  metrics?: AgentMetrics;
  cost: CostTracker;
  defaultToolTimeoutMs: number;
  resultBudget: ResultBudgetOptions;
  now: () => number;
  /** Durable tool results, handed to the executor (see tools/checkpoints.ts). */
  checkpoints?: ToolCheckpoints;
}

export interface LoopOutcome {
  text: string;
  stopReason: RunStopReason;
  history: Message[];
  /** Index in `history` where this run's messages start (0 after a compaction moved everything). */
  newFrom: number;
  compacted: boolean;
  error?: ClassifiedError;
}
