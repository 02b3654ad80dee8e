import type { AnyToolDefinition } from "../tools/types.js";
import type { FileLockOptions } from "./file-lock.js";
import { renderEntries } from "./memory-entries.js";
import { MemoryProvider, type MemoryLearning, type MemoryProviderContext } from "./memory-provider.js";
import { MemoryStore, type MemoryFileState, type MemoryTarget } from "./memory-store.js";
import { memoryTool } from "./memory-tool.js";

export const BUILTIN_MEMORY_PROVIDER_NAME = "builtin";

export interface BuiltinMemoryProviderOptions {
  /** The memory folder ($HERMES_HOME/memory). */
  memoryDir: string;
  limits?: Partial<Record<MemoryTarget, number>>;
  lock?: FileLockOptions;
}

const SECTION_TITLES: Record<MemoryTarget, string> = {
  memory: "Your notes",
  user: "About the user",
};

/**
 * MEMORY.md / USER.md with the `memory` tool (seed 000 §4.3). The prompt block is a snapshot frozen at
 * `initialize()` (or the last `refreshSnapshot()`), so writes during a session do not change the system prompt
 * and the provider's prefix cache keeps hitting; the tool itself always works on the live files.
 */
export class BuiltinMemoryProvider extends MemoryProvider {
  readonly name = BUILTIN_MEMORY_PROVIDER_NAME;
  readonly store: MemoryStore;
  private readonly tool: AnyToolDefinition;
  private context: MemoryProviderContext | undefined;
  private snapshot = "";

  constructor(options: BuiltinMemoryProviderOptions) {
    super();
    this.store = new MemoryStore({ dir: options.memoryDir, limits: options.limits, lock: options.lock });
    this.tool = memoryTool({ store: this.store, onWrite: (write) => this.context?.notifyWrite(write) });
  }

  async isAvailable(): Promise<boolean> {
    return true;
  }

  async initialize(context: MemoryProviderContext): Promise<void> {
    this.context = context;
    await this.refreshSnapshot();
  }

  getToolSchemas(): AnyToolDefinition[] {
    return [this.tool];
  }

  override systemPromptBlock(): string {
    return this.snapshot;
  }

  override async refreshSnapshot(): Promise<void> {
    const sections: string[] = [];
    for (const target of ["memory", "user"] as const) {
      const read = await this.store.read(target);
      if (!read.ok) {
        this.context?.logger.warn("memory file unreadable; left out of the prompt", { target, error: read.error });
        continue;
      }
      if (read.state.entries.length > 0) sections.push(renderSection(read.state));
    }
    this.snapshot = sections.join("\n\n");
  }

  /** Keeps reviewer learnings aimed at "memory" or "user" under the same rules as the tool (dedup, limits, secrets). */
  override async onLearnings(records: readonly MemoryLearning[]): Promise<void> {
    for (const record of records) {
      if (record.target !== "memory" && record.target !== "user") continue;
      const result = await this.store.add(record.target, record.content);
      if (!result.ok) {
        this.context?.logger.info("learning not saved to memory", { target: record.target, source: record.source, reason: result.code });
        continue;
      }
      if (result.changed) this.context?.notifyWrite({ key: record.target, value: record.content.trim() });
    }
  }
}

function renderSection(state: MemoryFileState): string {
  const size = `${state.chars.toLocaleString("en-US")}/${state.limit.toLocaleString("en-US")} characters`;
  return `## ${SECTION_TITLES[state.target]} (${state.fileName}, ${size})\n${renderEntries(state.entries)}`;
}
