import { checkStoredText } from "../prompt/stored-text-guard.js";
import type { AnyToolDefinition } from "../tools/types.js";
import type { FileLockOptions } from "./file-lock.js";
import { renderEntries } from "./memory-entries.js";
import type { MemoryStorage } from "./memory-documents.js";
import { MemoryProvider, type MemoryProviderContext } from "./memory-provider.js";
import { MemoryStore, type MemoryFileState, type MemoryTarget } from "./memory-store.js";
import { memoryTool } from "./memory-tool.js";

export const BUILTIN_MEMORY_PROVIDER_NAME = "builtin";

export interface BuiltinMemoryProviderOptions {
  /** The memory folder ($HERMES_HOME/memory). */
  memoryDir: string;
  /** The folder of USER.md when it is not `memoryDir` (see MemoryScope). */
  userDir?: string;
  limits?: Partial<Record<MemoryTarget, number>>;
  lock?: FileLockOptions;
  /** Where the files are kept (the database with HERMES_DATABASE_URL); default the folders on disk. */
  storage?: MemoryStorage;
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
    this.store = new MemoryStore({ dir: options.memoryDir, userDir: options.userDir, limits: options.limits, lock: options.lock, storage: options.storage });
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
      const entries = this.promptSafeEntries(read.state);
      if (entries.length > 0) sections.push(renderSection(read.state, entries));
    }
    this.snapshot = sections.join("\n\n");
  }

  /**
   * The tool refuses injected text, but the files can also be edited by hand or by older versions, so every
   * entry is checked again before it reaches the prompt; one that trips the scan is left out, not softened.
   */
  private promptSafeEntries(state: MemoryFileState): string[] {
    const safe: string[] = [];
    state.entries.forEach((entry, index) => {
      const check = checkStoredText(entry);
      if (!check.ok) {
        this.context?.logger.warn("memory entry left out of the prompt: possible prompt injection", {
          file: state.fileName,
          entry: index + 1,
          kinds: check.kinds,
        });
        return;
      }
      const clean = check.text.trim();
      if (clean !== "") safe.push(clean);
    });
    return safe;
  }
}

function renderSection(state: MemoryFileState, entries: readonly string[]): string {
  const size = `${state.chars.toLocaleString("en-US")}/${state.limit.toLocaleString("en-US")} characters`;
  return `## ${SECTION_TITLES[state.target]} (${state.fileName}, ${size})\n${renderEntries(entries)}`;
}
