/**
 * Span names and attribute keys, after OpenTelemetry's GenAI semantic conventions where they apply (gen_ai.*), and
 * under `hermes.` for what the conventions do not cover. The agent core depends on the API package only, so the
 * keys are spelled out here instead of imported from @opentelemetry/semantic-conventions' incubating entry.
 */
export const AGENT_NAME = "hermes";

export const SPAN_NAMES = {
  invokeAgent: `invoke_agent ${AGENT_NAME}`,
  chat: (modelId: string): string => `chat ${modelId}`,
  executeTool: (toolName: string): string => `execute_tool ${toolName}`,
  compression: "context_compression",
  reflection: "background_reflection",
  reflectionAudit: "audit",
  reflectionSkillGeneration: "skill_generation",
  reflectionLearningRecord: "learning_record",
} as const;

export const GEN_AI = {
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  /** The older name of gen_ai.provider.name, still read by many back ends. */
  system: "gen_ai.system",
  agentName: "gen_ai.agent.name",
  conversationId: "gen_ai.conversation.id",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  responseFinishReasons: "gen_ai.response.finish_reasons",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
} as const;

export const HERMES_ATTRIBUTES = {
  step: "hermes.step",
  attempt: "hermes.attempt",
  grace: "hermes.grace",
  fallback: "hermes.fallback",
  stopReason: "hermes.stop_reason",
  steps: "hermes.steps",
  costUsd: "hermes.cost_usd",
  toolStatus: "hermes.tool.status",
  toolResultChars: "hermes.tool.result_chars",
} as const;

export const ERROR_TYPE = "error.type";
export const HTTP_STATUS_CODE = "http.response.status_code";
