// Example external memory provider in the class-export style. It does not import MemoryProvider: discovery
// accepts any class with the same shape, so a plugin need not share the agent's copy of the module.
export class JournalMemoryProvider {
  name = "journal";
  #context;
  #entries = [];

  constructor(context) {
    this.#context = context;
  }

  async isAvailable() {
    return true;
  }

  async initialize(context) {
    this.#context = context;
  }

  getToolSchemas() {
    return [
      {
        name: "journal_note",
        description: "Append a line to the journal.",
        parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
        toolset: "memory",
        concurrency: "never-parallel",
        handler: async (args) => {
          this.#entries.push(args.text);
          this.#context.notifyWrite({ key: "journal", value: args.text });
          return { content: `Noted (${this.#entries.length} lines).` };
        },
      },
    ];
  }

  systemPromptBlock() {
    return this.#entries.length === 0 ? "" : `## Journal\n${this.#entries.join("\n")}`;
  }

  async prefetch() {
    return `journal for session ${this.#context.sessionId}`;
  }
}
