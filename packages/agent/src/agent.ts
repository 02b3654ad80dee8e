import { randomUUID } from "node:crypto";
import os from "node:os";
import path from "node:path";
import type { Message, UserMessage } from "@mariozechner/pi-ai";
import { context as contexts, SpanKind, type Span, type Tracer } from "@opentelemetry/api";
import type { HermesAgentConfig } from "./agent-config.js";
import { registerBuiltinTools } from "./builtin-tools/register.js";
import { scrubbedDeltas, scrubMemoryFences, type AgentMemory } from "./memory/agent-memory.js";
import { asCompressMessages, compressorForRun, type ContextCompressor } from "./context/compressor.js";
import { withDefaults } from "./defaults.js";
import { BudgetTracker } from "./loop/budget.js";
import type { AgentCallbacks } from "./loop/callbacks.js";
import { mergeCallbacks } from "./loop/merge-callbacks.js";
import { DEFAULT_RETRY_POLICY, type ModelState } from "./loop/resilient-call.js";
import type { HermesAgentResult } from "./loop/result.js";
import { runAgentLoop, type LoopDeps } from "./loop/run-loop.js";
import { delegateTaskTool } from "./delegation/delegate-tool.js";
import { DELEGATE_TASK_TOOL_NAME } from "./delegation/types.js";
import { abortableSleep } from "./loop/sleep.js";
import { CostTracker } from "./observability/cost.js";
import { silentLogger, type Logger } from "./observability/logger.js";
import { defaultAgentTracer, markFailed, recordedTraceId, startChildSpan, withActiveScope, type SpanScope } from "./observability/tracer.js";
import { AGENT_NAME, GEN_AI, HERMES_ATTRIBUTES, SPAN_NAMES } from "./observability/tracer-names.js";
import { SystemPromptBuilder } from "./prompt/builder.js";
import { ToolRegistry } from "./tools/registry.js";
import type { ToolCheckpoints } from "./tools/checkpoints.js";
import type { AnyToolDefinition, RunCaller } from "./tools/types.js";
import { DEFAULT_RESULT_BUDGET } from "./tools/result-budget.js";
import { sessionsRootOf, toolResultsDirOf } from "./tools/session-folders.js";
import { removeExpiredSessionFolders } from "./tools/spill-retention.js";

export interface RunOptions {
  /** The transcript so far (what the store holds for this session). */
  history?: readonly Message[];
  sessionId?: string;
  signal?: AbortSignal;
  /** Observers for this run only; they run in addition to the configured ones. */
  callbacks?: AgentCallbacks;
  /** Chat platform of this turn (telegram, discord, slack, console) for formatting guidance. */
  chatPlatform?: string;
  /** Who the run is for; handed to tools (e.g. session_search searches only this user's sessions). */
  caller?: RunCaller;
  /** The conversation's compressor (it keeps anti-thrash state, so the caller keeps one per conversation). */
  compressor?: ContextCompressor;
  /**
   * The memory of this run's scope (the person or chat): used instead of the configured memory for the prompt's
   * memory block, recall and sync.
   */
  memory?: AgentMemory;
  /** The scope's memory tools; they replace the registry's tools of the same names for this run. */
  memoryTools?: readonly AnyToolDefinition[];
  /** Durable tool results: what an earlier attempt of this run finished is replayed, and each finished call saved. */
  checkpoints?: ToolCheckpoints;
}

const DEFAULT_TOOL_TIMEOUT_MS = 120_000;

/** The agent core: builds the prompt, runs the tool-calling loop and reports what happened. Holds no chat state. */
export class HermesAgent {
  readonly tools: ToolRegistry;
  private readonly config: HermesAgentConfig;
  private readonly logger: Logger;
  private readonly prompt: SystemPromptBuilder;
  private readonly now: () => number;
  /** OpenTelemetry's API: spans go wherever the embedding process registered an SDK, and nowhere otherwise. */
  private readonly tracer: Tracer;

  private constructor(config: HermesAgentConfig, tools: ToolRegistry) {
    this.config = config;
    this.tools = tools;
    this.logger = config.logger ?? silentLogger;
    this.now = config.now ?? Date.now;
    this.tracer = config.tracer ?? defaultAgentTracer();
    this.prompt = new SystemPromptBuilder({
      identity: config.identity,
      customPrompt: config.systemPrompt,
      contextDir: config.contextDir,
      onThreat: config.contextFileMode ?? "block",
      logger: this.logger,
      now: () => new Date(this.now()),
    });
  }

  /** Creates an agent, registering the enabled built-in tools. Throws on invalid tool configuration. */
  static async create(config: HermesAgentConfig): Promise<HermesAgent> {
    const tools = config.tools ?? new ToolRegistry({ logger: config.logger });
    const sessionsRoot = sessionsRootOf(stateDirOf(config));
    if (config.builtinTools !== false) {
      // Saved outputs are readable only by their own session: they hold other conversations' terminal output,
      // fetched pages and search results.
      const registered = await registerBuiltinTools(tools, { ...config.builtinTools, sessionScopedRoot: sessionsRoot });
      if (!registered.ok) throw new Error(`Invalid built-in tool configuration: ${registered.error}`);
    }
    await removeExpiredSessionFolders(sessionsRoot, { now: config.now ?? Date.now, logger: config.logger });
    return new HermesAgent(config, tools);
  }

  /** The model each run starts on takes image parts (pi-ai's `input`); a fallback that does not gets pi-ai's placeholder. */
  get acceptsImages(): boolean {
    return this.config.model.model.input.includes("image");
  }

  /** Tokens of context of the model each run starts on, which a message's inlined documents must leave room in. */
  get contextWindow(): number {
    return this.config.model.model.contextWindow;
  }

  /** The system prompt this agent would send now (tools available, memory, context file, date, platform). */
  async systemPrompt(chatPlatform?: string): Promise<string> {
    const tools = await this.tools.available();
    const memoryBlock = await this.memoryBlock();
    const built = await this.prompt.build({ tools: tools.map((t) => ({ name: t.name, guidance: t.guidance })), memoryBlock, chatPlatform });
    return built.prompt;
  }

  async run(input: string | UserMessage["content"], options: RunOptions = {}): Promise<HermesAgentResult> {
    const sessionId = options.sessionId ?? randomUUID();
    // The caller's active span (the gateway's run, say) becomes the parent of this run's span.
    const { span: runSpan, scope: spans } = startChildSpan({ tracer: this.tracer, context: contexts.active() }, SPAN_NAMES.invokeAgent, {
      kind: SpanKind.INTERNAL,
      attributes: {
        [GEN_AI.operationName]: "invoke_agent",
        [GEN_AI.agentName]: AGENT_NAME,
        [GEN_AI.conversationId]: sessionId,
        [GEN_AI.providerName]: this.config.model.model.provider,
        [GEN_AI.requestModel]: this.config.model.model.id,
      },
    });
    try {
      return await withActiveScope(spans, () => this.runInSpan(input, options, { sessionId, span: runSpan, spans }));
    } catch (error) {
      markFailed(runSpan, error instanceof Error ? error.name : "exception", error);
      throw error;
    } finally {
      runSpan.end();
    }
  }

  private async runInSpan(
    input: string | UserMessage["content"],
    options: RunOptions,
    run: { sessionId: string; span: Span; spans: SpanScope },
  ): Promise<HermesAgentResult> {
    const { sessionId, span: runSpan, spans } = run;
    const signal = options.signal ?? new AbortController().signal;
    const logger = this.logger.child({ sessionId });
    const cost = new CostTracker();
    const started = this.now();

    const memory = options.memory ?? this.config.memory;
    const tools = withScopedTools(await this.tools.available(), options.memoryTools ?? []);
    // Built per run: its sub-agents share this run's model, tools, budget, callbacks and usage (loopDeps below).
    if (this.config.delegation && !tools.some((tool) => tool.name === DELEGATE_TASK_TOOL_NAME)) tools.push(delegateTaskTool(this.config.delegation, () => loopDeps));
    const memoryBlock = await this.memoryBlock(options.memory);
    const built = await this.prompt.build({ tools: tools.map((t) => ({ name: t.name, guidance: t.guidance })), memoryBlock, chatPlatform: options.chatPlatform });
    const state: ModelState = { binding: this.config.model, authFailures: 0 };
    // Text from people must not be able to forge a memory fence.
    const content = memory ? sanitizedInput(input, (text) => memory.sanitizeContext(text)) : input;
    const userMessage: UserMessage = { role: "user", content, timestamp: this.now() };
    const prior = [...(options.history ?? [])];
    memory?.onTurnStart(prior.filter((m) => m.role === "user").length + 1);
    const recalled = memory ? await this.safely("memory prefetch", () => memory.prefetchAll(), "") : "";
    const callbacks = mergeCallbacks(this.config.callbacks, options.callbacks, logger);
    const deltas = scrubbedDeltas(callbacks.onTextDelta);

    const budget = new BudgetTracker(this.config.budget, this.now);
    // Enforced inside steps too (model calls, backoff waits, tools), not only between them.
    const deadline = AbortSignal.timeout(budget.limits.maxWallTimeMs);
    // Sized for the model the run is on at the moment (an override, or the fallback after a switch).
    const compressor =
      options.compressor && compressorForRun(options.compressor, { model: () => state.binding, onPreCompress: memory && ((messages) => memory.onPreCompress(messages)) });
    const loopDeps: LoopDeps = {
      state,
      fallback: this.config.fallbackModel,
      systemPrompt: built.prompt,
      tools,
      budget,
      retry: withDefaults(DEFAULT_RETRY_POLICY, this.config.retry),
      logger,
      callbacks: { ...callbacks, onTextDelta: deltas.onTextDelta },
      ephemeralContext: recalled.trim() === "" ? undefined : recalled,
      signal: AbortSignal.any([signal, deadline]),
      deadline,
      stopSignal: signal,
      sessionId,
      caller: options.caller,
      sleep: this.config.sleep ?? abortableSleep,
      random: this.config.random,
      compress: compressor ? asCompressMessages(compressor, sessionId) : this.config.compress,
      compressor,
      spans,
      metrics: this.config.metrics,
      cost,
      defaultToolTimeoutMs: this.config.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
      resultBudget: {
        ...withDefaults(DEFAULT_RESULT_BUDGET, this.config.resultBudget),
        spillDir: toolResultsDirOf(stateDirOf(this.config), sessionId),
        onSpill: spillListener(this.config.resultBudget?.onSpill, sessionId, options.caller?.sessionKey),
        notePathsRelativeTo: this.config.resultBudget?.notePathsRelativeTo,
      },
      now: this.now,
      checkpoints: options.checkpoints,
    };
    const outcome = await runAgentLoop(prior, userMessage, loopDeps);

    deltas.flush(budget.steps);
    const durationMs = this.now() - started;
    this.config.metrics?.duration.observe(durationMs / 1000);
    const usage = cost.totals();
    runSpan.setAttributes({
      [GEN_AI.responseModel]: state.binding.model.id,
      [GEN_AI.inputTokens]: usage.input,
      [GEN_AI.outputTokens]: usage.output,
      [HERMES_ATTRIBUTES.stopReason]: outcome.stopReason,
      [HERMES_ATTRIBUTES.steps]: budget.steps,
      [HERMES_ATTRIBUTES.costUsd]: usage.costUsd,
    });
    if (outcome.error) markFailed(runSpan, outcome.error.errorClass, outcome.error.message);
    logger.info("agent run finished", { stopReason: outcome.stopReason, durationMs, costUsd: usage.costUsd, model: state.binding.model.id });

    const result: HermesAgentResult = {
      text: scrubMemoryFences(outcome.text),
      stopReason: outcome.stopReason,
      newMessages: outcome.history.slice(outcome.newFrom),
      history: outcome.history,
      compacted: outcome.compacted,
      steps: budget.steps,
      usage,
      error: outcome.error,
      model: { provider: state.binding.model.provider, id: state.binding.model.id },
      traceId: recordedTraceId(runSpan),
    };
    if (memory) {
      await this.safely("memory sync", () => memory.syncAll(result.newMessages), undefined);
      await this.safely("memory turn end", async () => memory.onTurnEnd(result), undefined);
    }
    return result;
  }

  private async safely<T>(what: string, fn: () => Promise<T>, fallback: T): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      this.logger.warn(`${what} failed; continuing without it`, { error: error instanceof Error ? error.message : String(error) });
      return fallback;
    }
  }

  private async memoryBlock(scoped?: AgentMemory): Promise<string | undefined> {
    const configured = this.config.memory;
    const provider = scoped
      ? () => scoped.buildMemoryContextBlock()
      : (this.config.memoryBlock ?? (configured ? () => configured.buildMemoryContextBlock() : undefined));
    if (!provider) return undefined;
    try {
      return await provider();
    } catch (error) {
      this.logger.warn("memory block provider failed; prompt built without memory", { error: error instanceof Error ? error.message : String(error) });
      return undefined;
    }
  }
}

function sanitizedInput(input: string | UserMessage["content"], sanitize: (text: string) => string): string | UserMessage["content"] {
  if (typeof input === "string") return sanitize(input);
  return input.map((part) => (part.type === "text" ? { ...part, text: sanitize(part.text) } : part));
}

/** The registry's tools with the scope's memory tools in place of those of the same names. */
function withScopedTools(tools: readonly AnyToolDefinition[], scoped: readonly AnyToolDefinition[]): AnyToolDefinition[] {
  if (scoped.length === 0) return [...tools];
  const names = new Set(scoped.map((tool) => tool.name));
  return [...tools.filter((tool) => !names.has(tool.name)), ...scoped];
}

function spillListener(
  onSpill: NonNullable<HermesAgentConfig["resultBudget"]>["onSpill"],
  sessionId: string,
  sessionKey: string | undefined,
): ((file: string, content: string) => Promise<void>) | undefined {
  if (onSpill === undefined) return undefined;
  return (file, content) => onSpill({ file, content, sessionId, ...(sessionKey === undefined ? {} : { sessionKey }) });
}

function stateDirOf(config: HermesAgentConfig): string {
  return config.stateDir ?? path.join(os.tmpdir(), "hermes-agent");
}
