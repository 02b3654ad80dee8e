export { HermesAgent, type RunOptions } from "./agent.js";
export type { HermesAgentConfig, SpilledToolOutput } from "./agent-config.js";
export type { HermesAgentResult, RunStopReason } from "./loop/result.js";
export { assistantText } from "./loop/result.js";
export { DEFAULT_LOOP_BUDGET, type LoopBudget } from "./loop/budget.js";
export type { AgentCallbacks, StatusEvent, StepEvent, ToolCallStatus, ToolEndEvent, ToolGate, ToolStartEvent } from "./loop/callbacks.js";
export type { ModelBinding } from "./loop/model-call.js";
export { DEFAULT_RETRY_POLICY, type CompressMessages, type RetryPolicy } from "./loop/resilient-call.js";
export { PROVIDER_KEY_NAMES, PROVIDER_KEY_VARIABLES } from "./models/provider-keys.js";
export { resolveModel, DEFAULT_CUSTOM_CONTEXT_WINDOW, type ModelRequest, type ModelResolution } from "./models/resolve.js";
export { CUSTOM_APIS, isCustomApi, MODEL_INPUT_KINDS, type CustomApi, type ModelInputKind, type ModelPrice } from "./models/custom-model.js";
export { parseApiKeys } from "./models/api-keys.js";

export { ToolRegistry, toModelTools } from "./tools/registry.js";
export { WITHHELD_FROM_SUBAGENTS } from "./delegation/subagent-tools.js";
export {
  DEFAULT_SUBAGENT_MAX_STEPS,
  DELEGATE_TASK_TOOL_NAME,
  MAX_DELEGATED_TASKS,
  type DelegatedTask,
  type DelegationConfig,
  type SubagentLineage,
  type SubagentRun,
  type SubagentRunStatus,
} from "./delegation/types.js";
export { SESSIONS_FOLDER_NAME, sessionFolderName } from "./tools/session-folders.js";
export { argumentsHash, replayingCheckpoints, type CheckpointedCall, type CheckpointedOutcome, type StoredToolCheckpoint, type ToolCheckpoints } from "./tools/checkpoints.js";
export { defineTool, type AnyToolDefinition, type ConcurrencyClass, type RunCaller, type ToolContext, type ToolDefinition, type ToolImage, type ToolResult } from "./tools/types.js";
export * from "./mcp/index.js";
export {
  BUILTIN_TOOL_NAMES,
  DEFAULT_SAFE_TOOLS,
  isBuiltinToolName,
  registerBuiltinTools,
  type BuiltinToolName,
  type BuiltinToolsConfig,
} from "./builtin-tools/register.js";
export type { SearchBackend } from "./builtin-tools/web-search.js";

export { repairHistory, type RepairNote } from "./history/repair.js";
export { classifyProviderError, type ClassifiedError, type ErrorRecoveryHint, type ProviderErrorClass } from "./errors/classify.js";
export { redactSecrets } from "./errors/redact.js";

export { scanContextContent, type ScanFinding } from "./prompt/injection-scan.js";
export { PLATFORM_HINTS } from "./prompt/platform-hints.js";

export * from "./observability/logger.js";
export { AGENT_TRACER_NAME, AGENT_TRACER_VERSION, defaultAgentTracer } from "./observability/tracer.js";
export { SPAN_NAMES, GEN_AI } from "./observability/tracer-names.js";
export { createMetricsRegistry, type Counter, type Gauge, type Histogram, type MetricsRegistry } from "./observability/metrics.js";
export { createAgentMetrics, recordLlmCall, type AgentMetrics } from "./observability/agent-metrics.js";
export { CostTracker, emptyUsageTotals, type UsageTotals } from "./observability/cost.js";

export {
  ContextCompressor,
  asCompressMessages,
  type CompressionReason,
  type CompressionResult,
  type CompressOptions,
  type ContextCompressorOptions,
} from "./context/compressor.js";
export { SUMMARY_MARKER, DROPPED_MARKER, readCompressionNote } from "./context/compression-note.js";
export { THRASHING_MESSAGE } from "./context/thrash-guard.js";
export { estimateContextTokens, estimateTextTokens } from "./context/token-estimate.js";

export {
  registerSkillTools,
  createSkillTools,
  bundledSkillsDir,
  defaultSkillLocations,
  SKILL_TOOL_NAMES,
  type SkillToolsOptions,
  type SkillToolsRegistration,
  type SkillTools,
  type SkillLocations,
} from "./skills/register-skill-tools.js";
export { SkillCatalog, type SkillCatalogOptions, type SkillCatalogStats } from "./skills/skill-cache.js";
export type { SkillEntry, SkillIndex, SkillSource, SkillOverride } from "./skills/skill-index.js";
export type { SkillProblem } from "./skills/skill-scan.js";
export type { SkillAction, SkillChangeListener } from "./skills/local-skill-store.js";
export { parseSkillDocument, SkillFrontmatterSchema, type SkillFrontmatter } from "./skills/frontmatter.js";
export * from "./memory/index.js";
export * from "./reflection/index.js";
export { abortableSleep } from "./loop/sleep.js";
