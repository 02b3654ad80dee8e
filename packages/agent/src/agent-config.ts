import type { BuiltinToolsConfig } from "./builtin-tools/register.js";
import type { DelegationConfig } from "./delegation/types.js";
import type { AgentMemory } from "./memory/agent-memory.js";
import type { AgentCallbacks } from "./loop/callbacks.js";
import type { LoopBudget } from "./loop/budget.js";
import type { ModelBinding } from "./loop/model-call.js";
import type { CompressMessages, RetryPolicy } from "./loop/resilient-call.js";
import type { AgentMetrics } from "./observability/agent-metrics.js";
import type { Logger } from "./observability/logger.js";
import type { Tracer } from "@opentelemetry/api";
import type { ToolRegistry } from "./tools/registry.js";

/** Configuration of a HermesAgent (seed 000, appendix A). Only `model` is required. */
export interface HermesAgentConfig {
  model: ModelBinding;
  /** Used for the rest of a run when the primary model fails in a way a different model may not (see the error hints). */
  fallbackModel?: ModelBinding;

  /** Registry to use; built-in tools are added to it. A new one is made when absent. */
  tools?: ToolRegistry;
  /** Built-in tool selection and their confinement; false registers none. */
  builtinTools?: BuiltinToolsConfig | false;
  /**
   * Offers `delegate_task` in every run: sub-agents with the run's tools (not delegate_task, memory, skill_manage),
   * model, abort signal and callbacks, their own step budget, their usage counted in the run's; absent: not offered.
   */
  delegation?: DelegationConfig;

  /** Layer 1 of the system prompt (who the agent is). */
  identity?: string;
  /** Layer 2: the operator's own instructions. */
  systemPrompt?: string;
  /** Folder searched for HERMES.md / AGENTS.md / CLAUDE.md / .cursorrules (usually the workspace). */
  contextDir?: string;
  /** A context file that looks like a prompt injection is left out ("block", default) or only logged ("warn"). */
  contextFileMode?: "block" | "warn";
  /** Layer 5: fenced memory block provider (defaults to `memory.buildMemoryContextBlock`). */
  memoryBlock?: () => string | Promise<string>;
  /** The memory system: prefetched recall next to the user message, sync after each run, fence scrubbing. */
  memory?: AgentMemory;

  /** Per-session scratch folders (oversized tool output) live under `<stateDir>/sessions/<id>/`. */
  stateDir?: string;
  budget?: Partial<LoopBudget>;
  retry?: Partial<RetryPolicy>;
  /** Default per-call tool timeout in ms (a tool may set its own). */
  toolTimeoutMs?: number;
  resultBudget?: {
    defaultMaxChars?: number;
    perTurnMaxChars?: number;
    previewChars?: number;
    /** Told of each oversized output saved for the model to page through (see ResultBudgetOptions.onSpill). */
    onSpill?: (spill: SpilledToolOutput) => Promise<void>;
    /** See ResultBudgetOptions.notePathsRelativeTo (e.g. the workspace root, when saved outputs follow the deployment). */
    notePathsRelativeTo?: string;
  };
  /** Called on context overflow with the transcript; returns a shorter one or null. */
  compress?: CompressMessages;

  callbacks?: AgentCallbacks;
  /** An OpenTelemetry tracer; default the global provider's "hermes-agent" tracer (a no-op until an SDK is registered). */
  tracer?: Tracer;
  metrics?: AgentMetrics;
  logger?: Logger;

  /** Injected for tests: clock, sleep used for backoff, and the jitter source. */
  now?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  random?: () => number;
}

/** An oversized tool output saved under the run's session folder (`<stateDir>/sessions/<id>/tool-results/`). */
export interface SpilledToolOutput {
  /** Absolute path of the saved file. */
  file: string;
  content: string;
  sessionId: string;
  /** The run's caller's session key, when it gave one. */
  sessionKey?: string;
}
