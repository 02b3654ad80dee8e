import type { Message } from "@mariozechner/pi-ai";
import type { HermesAgentResult } from "../loop/result.js";
import { silentLogger, type Logger } from "../observability/logger.js";
import type { AnyToolDefinition } from "../tools/types.js";
import { BuiltinMemoryProvider, type BuiltinMemoryProviderOptions } from "./builtin-provider.js";
import type { MemoryEditResult, MemoryReadResult, MemoryTarget } from "./memory-store.js";
import { fenceMemoryContext, sanitizeContext } from "./context-fence.js";
import type { MemoryProvider, MemoryProviderContext, MemoryWrite } from "./memory-provider.js";
import { callProvider, notifyProvider } from "./provider-calls.js";

export interface MemoryManagerOptions {
  /** The folder of MEMORY.md ($HERMES_HOME/memory, or the scope's folder). */
  memoryDir: string;
  /** The folder of USER.md when it is not `memoryDir`. */
  userDir?: string;
  /** Whose memory this manager holds; handed to providers (default "shared"). */
  scopeId?: string;
  sessionId?: string;
  logger?: Logger;
  /** The built-in provider; made from `memoryDir` (and `builtinOptions`) when absent, none when false. */
  builtin?: MemoryProvider | false;
  builtinOptions?: Omit<BuiltinMemoryProviderOptions, "memoryDir">;
  /** Tool names already taken outside memory (the agent's registry); a provider offering one is refused. */
  reservedToolNames?: readonly string[];
  /** Longest wait for one provider's hook (availability, initialize, prefetch, sync …); default 10 s. */
  hookTimeoutMs?: number;
}

const DEFAULT_HOOK_TIMEOUT_MS = 10_000;
const NO_BUILTIN = "The built-in memory files are not in use.";

/**
 * Runs the built-in memory provider and at most one external one (seed 000 §4.4): routes tool names to
 * providers, fans lifecycle hooks out with each provider isolated, fences what they contribute to the prompt
 * and tracks whether memory changed since the prompt's snapshot was taken.
 */
export class MemoryManager {
  /** Context for constructing plugins (`discoverMemoryProviders`); `initialize()` gives each provider its own. */
  readonly context: MemoryProviderContext;
  private readonly logger: Logger;
  private readonly hookTimeoutMs: number;
  private readonly reserved: ReadonlySet<string>;
  private providers: MemoryProvider[] = [];
  private readonly toolOwners = new Map<string, MemoryProvider>();
  private readonly toolsOf = new Map<MemoryProvider, AnyToolDefinition[]>();
  private readonly builtin: MemoryProvider | undefined;
  private readonly builtinFiles: BuiltinMemoryProvider | undefined;
  private dirty = false;

  constructor(options: MemoryManagerOptions) {
    this.logger = options.logger ?? silentLogger;
    this.hookTimeoutMs = options.hookTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS;
    this.reserved = new Set(options.reservedToolNames ?? []);
    this.context = {
      memoryDir: options.memoryDir,
      scopeId: options.scopeId ?? "shared",
      sessionId: options.sessionId ?? "default",
      logger: this.logger,
      notifyWrite: (write) => this.handleWrite(undefined, write),
    };
    this.builtin =
      options.builtin === false ? undefined : (options.builtin ?? new BuiltinMemoryProvider({ memoryDir: options.memoryDir, userDir: options.userDir, ...options.builtinOptions }));
    if (this.builtin && !this.register(this.builtin)) this.builtin = undefined;
    this.builtinFiles = this.builtin instanceof BuiltinMemoryProvider ? this.builtin : undefined;
  }

  /** The scope's built-in file as stored (for the reviewer, which may read and curate only its own scope). */
  async read(target: MemoryTarget): Promise<MemoryReadResult> {
    return this.builtinFiles ? this.builtinFiles.store.read(target) : { ok: false, code: "io", error: NO_BUILTIN };
  }

  /** Edits of the built-in files from outside the tool; a change marks the snapshot stale and tells the providers. */
  add(target: MemoryTarget, content: string): Promise<MemoryEditResult> {
    return this.editBuiltin({ key: target, value: content.trim() }, (store) => store.add(target, content));
  }

  replace(target: MemoryTarget, oldText: string, content: string): Promise<MemoryEditResult> {
    return this.editBuiltin({ key: target, value: content.trim() }, (store) => store.replace(target, oldText, content));
  }

  remove(target: MemoryTarget, oldText: string): Promise<MemoryEditResult> {
    return this.editBuiltin({ key: target, value: "" }, (store) => store.remove(target, oldText));
  }

  /**
   * Adds the external provider. Refused (false, with the reason logged) when one is already present, when its
   * name is taken, or when one of its tools clashes with a tool that is already routed or reserved.
   */
  addProvider(provider: MemoryProvider): boolean {
    const external = this.providers.find((existing) => existing !== this.builtin);
    if (external) {
      this.logger.warn("memory provider refused: only one external memory provider is allowed", { provider: provider.name, active: external.name });
      return false;
    }
    return this.register(provider);
  }

  /** Checks availability and initializes every provider; one that is unavailable or fails is dropped with its tools. */
  async initialize(): Promise<void> {
    await Promise.all(
      this.providers.map(async (provider) => {
        const available = await callProvider(this.logger, provider, "isAvailable", () => provider.isAvailable(), this.hookTimeoutMs);
        if (!available.ok || available.value !== true) {
          this.drop(provider, "not available");
          return;
        }
        const initialized = await callProvider(this.logger, provider, "initialize", () => provider.initialize(this.contextFor(provider)), this.hookTimeoutMs);
        if (!initialized.ok) this.drop(provider, "initialize failed");
      }),
    );
  }

  providerNames(): string[] {
    return this.providers.map((provider) => provider.name);
  }

  /** The provider that offers the tool called `name` (tools carry their handlers, so this is for routing and logs). */
  providerForTool(name: string): MemoryProvider | undefined {
    return this.toolOwners.get(name);
  }

  /** The memory tools to register with the agent's tool registry. */
  tools(): AnyToolDefinition[] {
    return this.providers.flatMap((provider) => this.toolsOf.get(provider) ?? []);
  }

  /** The providers' prompt blocks in one `<memory-context>` fence; empty when none has anything to say. */
  buildMemoryContextBlock(): string {
    const blocks: string[] = [];
    for (const provider of this.providers) {
      if (!provider.systemPromptBlock) continue;
      try {
        const block = provider.systemPromptBlock();
        if (typeof block === "string" && block.trim() !== "") blocks.push(sanitizeContext(block).trim());
      } catch (error) {
        this.logger.warn("memory provider hook failed", { provider: provider.name, hook: "systemPromptBlock", error: error instanceof Error ? error.message : String(error) });
      }
    }
    return fenceMemoryContext(blocks.join("\n\n"));
  }

  /** Context recalled for the coming turn, already fenced for injection next to the user message; "" when none. */
  async prefetchAll(): Promise<string> {
    const recalled = await Promise.all(
      this.providers.map(async (provider) => {
        if (!provider.prefetch) return "";
        const result = await callProvider(this.logger, provider, "prefetch", () => provider.prefetch?.(), this.hookTimeoutMs);
        return result.ok && typeof result.value === "string" ? sanitizeContext(result.value).trim() : "";
      }),
    );
    return fenceMemoryContext(recalled.filter((text) => text !== "").join("\n\n"));
  }

  async syncAll(messages: readonly Message[]): Promise<void> {
    await this.fanOut("syncTurn", (provider) => provider.syncTurn && (() => provider.syncTurn?.(messages)));
  }

  /** Memory was written since the prompt snapshot was taken. */
  markDirty(): void {
    this.dirty = true;
  }

  hasChanged(): boolean {
    return this.dirty;
  }

  /** Re-takes the providers' prompt snapshots and clears the dirty flag. Call it at a session boundary only. */
  async refreshSnapshot(): Promise<void> {
    this.dirty = false;
    await this.fanOut("refreshSnapshot", (provider) => provider.refreshSnapshot && (() => provider.refreshSnapshot?.()));
  }

  /** At the start of a new session: refreshes the snapshot if memory changed; true means rebuild the prompt. */
  async refreshIfChanged(): Promise<boolean> {
    if (!this.dirty) return false;
    await this.refreshSnapshot();
    return true;
  }

  /** Removes fence tags from text that must not open or close a memory fence (user input, model output). */
  sanitizeContext(text: string): string {
    return sanitizeContext(text);
  }

  onTurnStart(turn: number): void {
    this.notifyAll("onTurnStart", (provider) => provider.onTurnStart && (() => provider.onTurnStart?.(turn)));
  }

  onTurnEnd(result: HermesAgentResult): void {
    this.notifyAll("onTurnEnd", (provider) => provider.onTurnEnd && (() => provider.onTurnEnd?.(result)));
  }

  /** Before compression summarises `messages` away; a provider that throws is logged and never stops it. */
  onPreCompress(messages: readonly Message[]): void {
    this.notifyAll("onPreCompress", (provider) => provider.onPreCompress && (() => provider.onPreCompress?.(messages)));
  }

  /** The conversation `sessionId` ended (`/new`, `/reset`); each provider is isolated and bounded by the hook timeout. */
  async onSessionEnd(sessionId: string): Promise<void> {
    await this.fanOut("onSessionEnd", (provider) => provider.onSessionEnd && (() => provider.onSessionEnd?.(sessionId)));
  }

  /** Erases what the external providers keep for this scope (the built-in files are removed by `forgetMemoryScope`). */
  async forgetExternal(): Promise<void> {
    await this.fanOut("forget", (provider) => provider !== this.builtin && provider.forget ? () => provider.forget?.() : undefined);
  }

  async shutdown(): Promise<void> {
    await this.fanOut("shutdown", (provider) => provider.shutdown && (() => provider.shutdown?.()));
  }

  private register(provider: MemoryProvider): boolean {
    const refuse = (reason: string, fields: Record<string, unknown> = {}): false => {
      this.logger.warn(`memory provider refused: ${reason}`, { provider: provider.name, ...fields });
      return false;
    };
    if (this.providers.some((existing) => existing.name === provider.name)) return refuse("a provider with this name is already registered");
    let tools: AnyToolDefinition[];
    try {
      tools = provider.getToolSchemas();
    } catch (error) {
      return refuse("getToolSchemas failed", { error: error instanceof Error ? error.message : String(error) });
    }
    const seen = new Set<string>();
    for (const tool of tools) {
      const owner = this.toolOwners.get(tool.name)?.name ?? (this.reserved.has(tool.name) ? "the agent" : seen.has(tool.name) ? provider.name : undefined);
      if (owner !== undefined) return refuse("tool name clash", { tool: tool.name, owner });
      seen.add(tool.name);
    }
    this.providers.push(provider);
    this.toolsOf.set(provider, tools);
    for (const tool of tools) this.toolOwners.set(tool.name, provider);
    this.logger.debug("memory provider added", { provider: provider.name, tools: tools.map((tool) => tool.name) });
    return true;
  }

  private drop(provider: MemoryProvider, reason: string): void {
    this.providers = this.providers.filter((existing) => existing !== provider);
    for (const tool of this.toolsOf.get(provider) ?? []) this.toolOwners.delete(tool.name);
    this.toolsOf.delete(provider);
    this.logger.warn("memory provider dropped", { provider: provider.name, reason });
  }

  private contextFor(provider: MemoryProvider): MemoryProviderContext {
    return {
      ...this.context,
      logger: this.logger.child({ memoryProvider: provider.name }),
      notifyWrite: (write) => this.handleWrite(provider, write),
    };
  }

  private async editBuiltin(write: MemoryWrite, edit: (store: BuiltinMemoryProvider["store"]) => Promise<MemoryEditResult>): Promise<MemoryEditResult> {
    if (!this.builtinFiles) return { ok: false, code: "io", error: NO_BUILTIN };
    const result = await edit(this.builtinFiles.store);
    if (result.ok && result.changed) this.handleWrite(this.builtinFiles, write);
    return result;
  }

  private handleWrite(source: MemoryProvider | undefined, write: MemoryWrite): void {
    this.markDirty();
    for (const provider of this.providers) {
      if (provider === source || !provider.onMemoryWrite) continue;
      notifyProvider(this.logger, provider, "onMemoryWrite", () => provider.onMemoryWrite?.(write.key, write.value));
    }
  }

  private async fanOut(hook: string, pick: (provider: MemoryProvider) => (() => unknown) | undefined): Promise<void> {
    await Promise.all(
      this.providers.map(async (provider) => {
        const call = pick(provider);
        if (call) await callProvider(this.logger, provider, hook, call, this.hookTimeoutMs);
      }),
    );
  }

  private notifyAll(hook: string, pick: (provider: MemoryProvider) => (() => unknown) | undefined): void {
    for (const provider of this.providers) {
      const call = pick(provider);
      if (call) notifyProvider(this.logger, provider, hook, call);
    }
  }
}
