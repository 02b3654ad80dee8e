import type { Tool } from "@mariozechner/pi-ai";
import { silentLogger, type Logger } from "../observability/logger.js";
import type { AnyToolDefinition } from "./types.js";

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export interface ToolRegistryOptions {
  logger?: Logger;
}

/**
 * The set of tools an agent may offer the model. Availability is re-checked on every turn so a tool whose backing
 * service appears or disappears follows without a restart; a check that throws only hides that tool.
 */
export class ToolRegistry {
  private readonly tools = new Map<string, AnyToolDefinition>();
  private readonly logger: Logger;
  private readonly reportedCheckErrors = new Set<string>();

  constructor(options: ToolRegistryOptions = {}) {
    this.logger = options.logger ?? silentLogger;
  }

  /** Registering a name twice is a programming error: silently shadowing a tool would change behaviour unseen. */
  register(definition: AnyToolDefinition): void {
    if (!TOOL_NAME.test(definition.name)) {
      throw new Error(`Invalid tool name "${definition.name}": use letters, digits, _ or -, at most 64 characters`);
    }
    if (this.tools.has(definition.name)) {
      throw new Error(`Tool "${definition.name}" is already registered`);
    }
    this.tools.set(definition.name, definition);
  }

  unregister(name: string): boolean {
    return this.tools.delete(name);
  }

  has(name: string): boolean {
    return this.tools.has(name);
  }

  get(name: string): AnyToolDefinition | undefined {
    return this.tools.get(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  /** Tools whose availability check passes, in registration order. */
  async available(): Promise<AnyToolDefinition[]> {
    const checks = await Promise.all(
      [...this.tools.values()].map(async (tool) => ((await this.isAvailable(tool)) ? tool : undefined)),
    );
    return checks.filter((tool): tool is AnyToolDefinition => tool !== undefined);
  }

  private async isAvailable(tool: AnyToolDefinition): Promise<boolean> {
    if (!tool.isAvailable) return true;
    try {
      return await tool.isAvailable();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const key = `${tool.name}:${message}`;
      if (!this.reportedCheckErrors.has(key)) {
        // Varying error texts must not grow the set forever; forgetting means an occasional repeated log line.
        if (this.reportedCheckErrors.size >= 1_000) this.reportedCheckErrors.clear();
        this.reportedCheckErrors.add(key);
        this.logger.warn("tool availability check failed; tool hidden from the model", { tool: tool.name, error: message });
      }
      return false;
    }
  }
}

/** The model-facing description of tools (name, description, JSON schema). */
export function toModelTools(tools: readonly AnyToolDefinition[]): Tool[] {
  return tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters }));
}
