import { mkdir } from "node:fs/promises";
import path from "node:path";
import {
  BackgroundReviewer,
  BUILTIN_TOOL_NAMES,
  SkillCatalog,
  bundledFrameworksDir,
  loadFrameworks,
  ContextCompressor,
  DELEGATE_TASK_TOOL_NAME,
  HermesAgent,
  MEMORY_TOOL_NAME,
  SKILL_TOOL_NAMES,
  ToolRegistry,
  defaultSkillLocations,
  registerSkillTools,
  resolveModel,
  type AgentMetrics,
  type Logger,
  type MemoryManager,
  type ModelBinding,
  type SkillChangeListener,
  type SpilledToolOutput,
} from "@hermes/agent";
import type { Tracer } from "@opentelemetry/api";
import { sessionSearchTool, type Store } from "@hermes/store";
import type { ConfigIssue } from "../config/errors.js";
import type { GatewayConfig } from "../config/gateway-config.js";
import { createGatewayMemory, logMemoryScope, memoryStorageOf, type GatewayMemory } from "./memory-scopes.js";
import { startMcpTools, type McpTools } from "./mcp-wiring.js";
import { BoundedMap, resolveModelName } from "./model-names.js";
import { CRONJOB_TOOL, cronjobTool } from "../cron/cronjob-tool.js";
import { SESSION_SEARCH_TOOL } from "./tool-names.js";

const MAX_MODEL_AGENTS = 16;
const MAX_CONVERSATIONS = 2_000;

export const NO_MODEL_MESSAGE = [
  "No model is configured, so there is nobody to answer. Set one of:",
  "  - a hosted model: HERMES_MODEL=anthropic/claude-sonnet-4-5 and the provider's key, e.g. ANTHROPIC_API_KEY=... (or HERMES_API_KEY=...)",
  "  - a local OpenAI-compatible server such as Ollama: HERMES_BASE_URL=http://127.0.0.1:11434/v1 and HERMES_MODEL=llama3.1",
  "Put them in the environment, in a .env file in this folder, or in $HERMES_HOME/config.yaml.",
].join("\n");

export interface AgentDeps {
  logger: Logger;
  /**
   * Search for session_search; memoryDocuments keeps memory when HERMES_DATABASE_URL is set; subagentRuns keeps the
   * lineage of delegate_task; cronJobs and deliveries serve cronjob (which announces each task it creates in the chat).
   */
  store: Pick<Store, "search" | "memoryDocuments" | "subagentRuns" | "cronJobs" | "deliveries">;
  /** OpenTelemetry tracer for the agents; default the global provider's (set up by startTracing, or a no-op). */
  tracer?: Tracer;
  metrics?: AgentMetrics;
  /**
   * With HERMES_DATABASE_URL (shared-files-sync.ts): skill changes and saved tool outputs go to the database, and a
   * pull that changed skills makes every catalog look at the disk again.
   */
  sharedFiles?: { onSkillChanged: SkillChangeListener; onSpill(spill: SpilledToolOutput): Promise<void>; onSkillsPulled(listener: () => void): void };
}

/** Agents for the configured model and for per-conversation /model overrides, sharing skills; memory is per scope. */
export interface AgentPool {
  readonly models: { primary: string; fallback?: string };
  readonly primary: ModelBinding;
  /** Memory per scope (HERMES_MEMORY_SCOPE): a run gets its message's scope, never another's. */
  readonly memory: GatewayMemory;
  /** config.yaml's MCP tool servers, shared by every agent of this process; their states for /readyz. */
  readonly mcp: Pick<McpTools, "status">;
  agentFor(model: string | undefined): Promise<HermesAgent>;
  /** The model a session's runs use: its /model override, or the configured one when there is none (or it is unusable). */
  modelFor(model: string | undefined): ModelBinding;
  /** Whether a model name can be used (known, with a key); the reason when not. */
  checkModel(name: string): string | undefined;
  /** One compressor per conversation: it carries the anti-thrash state across runs. */
  compressorFor(sessionKey: string): ContextCompressor;
  /**
   * One background reviewer per conversation and memory scope (its turn counters are that chat's, and it writes only
   * into that scope); undefined when reflection is off or there is no scope.
   */
  reviewerFor(sessionKey: string, memory?: MemoryManager): BackgroundReviewer | undefined;
  shutdown(): Promise<void>;
}

export type AgentPoolBuild = { ok: true; pool: AgentPool } | { ok: false; issue: ConfigIssue };

export async function createAgentPool(config: GatewayConfig, deps: AgentDeps): Promise<AgentPoolBuild> {
  if (!config.model) return { ok: false, issue: { setting: "HERMES_MODEL", message: NO_MODEL_MESSAGE } };
  const primary = resolveModel(
    { model: config.model.model, baseUrl: config.model.baseUrl, api: config.model.api, apiKey: config.model.apiKey, contextWindow: config.model.contextWindow, price: config.model.price, input: config.model.input },
    config.providerKeys,
  );
  if (!primary.ok) return { ok: false, issue: { setting: "HERMES_MODEL", message: primary.error } };
  let fallback: ModelBinding | undefined;
  if (config.fallback) {
    const resolved = resolveModel({ model: config.fallback.model, baseUrl: config.fallback.baseUrl, api: config.fallback.api, apiKey: config.fallback.apiKey }, config.providerKeys);
    if (!resolved.ok) return { ok: false, issue: { setting: "HERMES_FALLBACK_MODEL", message: resolved.error } };
    fallback = resolved.binding;
  }
  await Promise.all([config.paths.workspace, config.paths.sessions, config.paths.logs, config.paths.memory, config.paths.skills].map((dir) => mkdir(dir, { recursive: true })));

  if (config.tools.includes("terminal")) {
    deps.logger.warn("the terminal tool is enabled: commands run as this process's user and are not sandboxed; allow only trusted users");
  }
  const memory = createGatewayMemory(config, { logger: deps.logger, toolsEnabled: config.tools.includes(MEMORY_TOOL_NAME), storage: memoryStorageOf(config, deps.store) });
  await logMemoryScope(config, deps.logger);
  // Connects in the background: a slow or failing MCP server never holds up start-up.
  const mcp = startMcpTools(config, deps.logger);

  const resolveOverride = (name: string): ModelBinding | string => {
    const resolved = resolveModelName(config, name);
    return resolved.ok ? resolved.binding : resolved.error;
  };

  // Agents per /model name: bounded, since any resolvable name creates one.
  const agents = new BoundedMap<string, Promise<HermesAgent>>(MAX_MODEL_AGENTS);
  // An agent dropped from `agents` stops following the MCP servers, so its registry is not kept alive by them.
  const detachMcpOf = new WeakMap<HermesAgent, () => void>();
  const build = async (binding: ModelBinding): Promise<HermesAgent> => {
    const registry = new ToolRegistry({ logger: deps.logger });
    const enabled = new Set(config.tools);
    if (SKILL_TOOL_NAMES.some((name) => enabled.has(name))) {
      const skills = registerSkillTools(registry, { ...defaultSkillLocations(config.home), logger: deps.logger, onSkillChanged: deps.sharedFiles?.onSkillChanged });
      if (!skills.ok) throw new Error(`skills: ${skills.error}`);
      deps.sharedFiles?.onSkillsPulled(() => skills.catalog.invalidate());
      for (const name of SKILL_TOOL_NAMES) if (!enabled.has(name)) registry.unregister(name);
    }
    if (enabled.has(SESSION_SEARCH_TOOL)) registry.register(sessionSearchTool(deps.store));
    if (enabled.has(CRONJOB_TOOL)) registry.register(cronjobTool(deps.store));
    const agent = await HermesAgent.create({
      model: binding,
      fallbackModel: fallback,
      tools: registry,
      builtinTools: {
        enable: config.tools.filter((name) => (BUILTIN_TOOL_NAMES as readonly string[]).includes(name)),
        workspaceRoot: config.paths.workspace,
        allowPrivateNetwork: config.webAllowPrivate,
        searchBackend: config.search,
      },
      contextDir: config.paths.workspace,
      systemPrompt: config.systemPrompt,
      // Memory comes with each run (RunOptions.memory), from the run's own scope.
      stateDir: config.home,
      budget: { maxSteps: config.maxSteps },
      delegation: enabled.has(DELEGATE_TASK_TOOL_NAME) ? { maxSteps: config.subagentMaxSteps, lineage: deps.store.subagentRuns } : undefined,
      // Named relative to the workspace, so the note means the copy a run on another machine restores.
      resultBudget: deps.sharedFiles && { onSpill: deps.sharedFiles.onSpill, notePathsRelativeTo: config.paths.workspace },
      logger: deps.logger,
      tracer: deps.tracer,
      metrics: deps.metrics,
    });
    detachMcpOf.set(agent, mcp.attach(registry));
    return agent;
  };

  // Per-conversation state, bounded so it does not grow with every chat the bot has ever seen.
  const compressors = new BoundedMap<string, ContextCompressor>(MAX_CONVERSATIONS);
  const reviewers = new BoundedMap<string, BackgroundReviewer>(MAX_CONVERSATIONS);
  const frameworks = config.reflection.enabled
    ? await loadFrameworks([bundledFrameworksDir(), path.join(config.home, "frameworks")], { logger: deps.logger })
    : [];
  const skillLocations = defaultSkillLocations(config.home);
  // Its own catalog without a snapshot file, so it never races the tools' catalog over the cache.
  const reflectionCatalog = new SkillCatalog({ roots: skillLocations.roots, localSkillsDir: skillLocations.localSkillsDir, logger: deps.logger });
  deps.sharedFiles?.onSkillsPulled(() => reflectionCatalog.invalidate());
  const pool: AgentPool = {
    models: { primary: config.model.model, fallback: config.fallback?.model },
    primary: primary.binding,
    memory,
    mcp,
    agentFor: (model) => {
      const key = model ?? "";
      let agent = agents.get(key);
      if (!agent) {
        const binding = model === undefined ? primary.binding : resolveOverride(model);
        agent = typeof binding === "string" ? Promise.reject(new Error(binding)) : build(binding);
        void agents.set(key, agent)?.then((evicted) => detachMcpOf.get(evicted)?.(), () => undefined);
        agent.catch(() => agents.delete(key));
      }
      return agent;
    },
    modelFor: (model) => {
      const binding = model === undefined ? primary.binding : resolveOverride(model);
      return typeof binding === "string" ? primary.binding : binding;
    },
    checkModel: (name) => {
      const resolved = resolveOverride(name);
      return typeof resolved === "string" ? resolved : undefined;
    },
    compressorFor: (sessionKey) => {
      let compressor = compressors.get(sessionKey);
      if (!compressor) {
        compressor = new ContextCompressor({
          summarizer: primary.binding,
          contextWindow: primary.binding.model.contextWindow,
          threshold: config.compressionThreshold,
          logger: deps.logger.child({ sessionKey }),
        });
        compressors.set(sessionKey, compressor);
      }
      return compressor;
    },
    reviewerFor: (sessionKey, scoped) => {
      if (!config.reflection.enabled || !scoped) return undefined;
      const key = `${sessionKey}\n${scoped.context.scopeId}`;
      let reviewer = reviewers.get(key);
      if (!reviewer) {
        reviewer = new BackgroundReviewer({
          model: primary.binding,
          // Through the scope's manager, so a review's change marks the snapshot stale and reaches the providers.
          memory: scoped,
          skills: { catalog: reflectionCatalog, onSkillChanged: deps.sharedFiles?.onSkillChanged },
          frameworks,
          turnNudgeInterval: config.reflection.interval,
          iterationNudgeInterval: config.reflection.interval,
          tracer: deps.tracer,
          logger: deps.logger.child({ sessionKey, memoryScope: scoped.context.scopeId }),
        });
        void reviewers.set(key, reviewer)?.shutdown();
      }
      return reviewer;
    },
    shutdown: async () => {
      await mcp.close();
      await Promise.all(reviewers.values().map((reviewer) => reviewer.shutdown()));
      await memory.shutdown();
    },
  };
  return { ok: true, pool };
}
