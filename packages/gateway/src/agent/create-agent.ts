import { mkdir } from "node:fs/promises";
import {
  HermesAgent,
  resolveModel,
  type AgentCallbacks,
  type AgentMetrics,
  type Logger,
  type ModelBinding,
  type Tracer,
} from "@hermes/agent";
import type { ConfigIssue } from "../config/errors.js";
import type { GatewayConfig } from "../config/gateway-config.js";

export const NO_MODEL_MESSAGE = [
  "No model is configured, so there is nobody to answer. Set one of:",
  "  - a hosted model: HERMES_MODEL=anthropic/claude-sonnet-4-5 and the provider's key, e.g. ANTHROPIC_API_KEY=... (or HERMES_API_KEY=...)",
  "  - a local OpenAI-compatible server such as Ollama: HERMES_BASE_URL=http://127.0.0.1:11434/v1 and HERMES_MODEL=llama3.1",
  "Put them in the environment, in a .env file in this folder, or in $HERMES_HOME/config.yaml.",
].join("\n");

export type AgentBuild = { ok: true; agent: HermesAgent; model: ModelBinding } | { ok: false; issue: ConfigIssue };

export interface AgentDeps {
  logger: Logger;
  tracer?: Tracer;
  metrics?: AgentMetrics;
  callbacks?: AgentCallbacks;
}

/** Builds the agent the configuration describes: model and fallback, enabled tools confined to the workspace. */
export async function createAgentFromConfig(config: GatewayConfig, deps: AgentDeps): Promise<AgentBuild> {
  if (!config.model) return { ok: false, issue: { setting: "HERMES_MODEL", message: NO_MODEL_MESSAGE } };
  const primary = resolveModel({
    model: config.model.model,
    baseUrl: config.model.baseUrl,
    apiKey: config.model.apiKey,
    contextWindow: config.model.contextWindow,
  }, config.providerKeys);
  if (!primary.ok) return { ok: false, issue: { setting: "HERMES_MODEL", message: primary.error } };

  let fallback: ModelBinding | undefined;
  if (config.fallback) {
    const resolved = resolveModel(
      { model: config.fallback.model, baseUrl: config.fallback.baseUrl, apiKey: config.fallback.apiKey },
      config.providerKeys,
    );
    if (!resolved.ok) return { ok: false, issue: { setting: "HERMES_FALLBACK_MODEL", message: resolved.error } };
    fallback = resolved.binding;
  }

  await Promise.all([config.paths.workspace, config.paths.sessions, config.paths.logs].map((dir) => mkdir(dir, { recursive: true })));
  const agent = await HermesAgent.create({
    model: primary.binding,
    fallbackModel: fallback,
    builtinTools: {
      enable: config.tools,
      workspaceRoot: config.paths.workspace,
      allowPrivateNetwork: config.webAllowPrivate,
      searchBackend: config.search,
    },
    contextDir: config.paths.workspace,
    systemPrompt: config.systemPrompt,
    stateDir: config.home,
    budget: { maxSteps: config.maxSteps },
    logger: deps.logger,
    tracer: deps.tracer,
    metrics: deps.metrics,
    callbacks: deps.callbacks,
  });
  return { ok: true, agent, model: primary.binding };
}
