import type { Message } from "@mariozechner/pi-ai";
import type { HermesAgentResult } from "../loop/result.js";
import type { Logger } from "../observability/logger.js";
import type { AnyToolDefinition } from "../tools/types.js";

/** A memory change one provider reports, so the manager can mark the prompt stale and tell the others. */
export interface MemoryWrite {
  /** What was written to: "memory" or "user" for the built-in files, any key for an external provider. */
  key: string;
  /** The new text (empty for a removal). */
  value: string;
}

/** What a provider receives at construction (plugin `register(ctx)` / class constructor) and at `initialize()`. */
export interface MemoryProviderContext {
  /** Folder of the built-in files ($HERMES_HOME/memory); external providers may keep their own state beside it. */
  memoryDir: string;
  /** Whose memory this is (e.g. `user:telegram:42`, or `shared`): keep what you store for one scope out of every other. */
  scopeId: string;
  logger: Logger;
  sessionId: string;
  /** Report a write: marks the cached system prompt stale and calls `onMemoryWrite` on the other providers. */
  notifyWrite: (write: MemoryWrite) => void;
}

/**
 * A memory backend (seed 000 §4.2). The built-in one keeps MEMORY.md / USER.md; at most one external provider
 * (vector store, hosted memory API …) may run beside it.
 *
 * Tools carry their own handlers (`AnyToolDefinition.handler`), so there is no `handleToolCall`: the manager
 * only routes names to providers for bookkeeping and the tool registry calls the handler directly.
 *
 * Plugins loaded by discovery need not extend this class (they may import a different copy of it); any object
 * with the same shape is accepted, so keep members public and free of private fields.
 */
export abstract class MemoryProvider {
  abstract readonly name: string;
  /** Cheap check (configuration present, service reachable); false keeps the provider and its tools out. */
  abstract isAvailable(): Promise<boolean>;
  abstract initialize(context: MemoryProviderContext): Promise<void>;
  /** Tools this provider offers the model; names must not clash with other providers' tools. */
  abstract getToolSchemas(): AnyToolDefinition[];

  /** Text for the fenced memory layer of the system prompt; keep it stable within a session. */
  systemPromptBlock?(): string;
  /** Re-take whatever `systemPromptBlock` shows (called at a session boundary after memory changed). */
  refreshSnapshot?(): Promise<void>;
  /** Context recalled for the coming turn (injected fenced, outside the cached system prompt). */
  prefetch?(): Promise<string>;
  /** Persist or index the turn's messages after it ended. */
  syncTurn?(messages: readonly Message[]): Promise<void>;
  shutdown?(): Promise<void>;

  /** A turn begins; `turn` counts the person's messages in the conversation, this one included. */
  onTurnStart?(turn: number): void;
  /** The turn's run finished (after `syncTurn`). */
  onTurnEnd?(result: HermesAgentResult): void;
  /**
   * The conversation ended (`/new`, `/reset`): flush or close what you keep per session. Called on the managers of
   * the scopes that took part in it, and on the scope of whoever ended it.
   */
  onSessionEnd?(sessionId: string): Promise<void>;
  /**
   * Last look at the messages about to be summarised away (proactive, overflow and `/compress` compression), e.g. to
   * index them before only a summary is left. Synchronous and isolated: a throw is logged and compression goes on.
   */
  onPreCompress?(messages: readonly Message[]): void;
  /**
   * Memory was written elsewhere: by another provider, or by the background review curating this scope's MEMORY.md
   * (e.g. mirror built-in writes into an external store).
   */
  onMemoryWrite?(key: string, value: string): void;
  /** Erase everything kept for this provider's scope (the person asked `/forget confirm`). */
  forget?(): Promise<void>;
}

const REQUIRED_METHODS = ["isAvailable", "initialize", "getToolSchemas"] as const;

/** Duck-typed check used for plugins, which may have been built against another copy of `MemoryProvider`. */
export function isMemoryProvider(value: unknown): value is MemoryProvider {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Record<string, unknown>;
  if (typeof record.name !== "string" || record.name.trim() === "") return false;
  return REQUIRED_METHODS.every((method) => typeof record[method] === "function");
}

/** True for a class whose instances would pass `isMemoryProvider` (checked on the prototype chain). */
export function isMemoryProviderClass(value: unknown): value is new (context: MemoryProviderContext) => MemoryProvider {
  if (typeof value !== "function" || value.prototype === undefined) return false;
  const prototype: unknown = value.prototype;
  if (typeof prototype !== "object" || prototype === null) return false;
  return REQUIRED_METHODS.every((method) => typeof (prototype as Record<string, unknown>)[method] === "function");
}
