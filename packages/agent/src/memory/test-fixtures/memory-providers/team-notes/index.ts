import { Type } from "@sinclair/typebox";
import { defineTool, type AnyToolDefinition } from "../../../../tools/types.js";
import { MemoryProvider, type MemoryProviderContext } from "../../../memory-provider.js";

/** Example external memory provider in the register() style, written in TypeScript and loaded through tsx. */
class TeamNotesProvider extends MemoryProvider {
  readonly name = "team-notes";
  readonly notes: string[] = [];
  private context: MemoryProviderContext;

  constructor(context: MemoryProviderContext) {
    super();
    this.context = context;
  }

  async isAvailable(): Promise<boolean> {
    return true;
  }

  async initialize(context: MemoryProviderContext): Promise<void> {
    this.context = context;
  }

  getToolSchemas(): AnyToolDefinition[] {
    return [
      defineTool({
        name: "team_notes_search",
        description: "Search the team's shared notes.",
        parameters: Type.Object({ query: Type.String() }),
        concurrency: "parallel-safe",
        handler: async (args) => ({ content: this.notes.filter((note) => note.includes(args.query)).join("\n") || "(nothing)" }),
      }),
    ];
  }

  override onMemoryWrite(key: string, value: string): void {
    this.notes.push(`${key}: ${value}`);
    this.context.logger.debug("mirrored a memory write", { key });
  }
}

export function register(context: MemoryProviderContext): MemoryProvider {
  return new TeamNotesProvider(context);
}
