import { appendFileSync, mkdirSync } from "node:fs";
import path from "node:path";

// Example external memory provider in the class-export style. It does not import MemoryProvider: discovery
// accepts any class with the same shape, so a plugin need not share the agent's copy of the module.
// It logs the lifecycle hooks it hears to journal-events.log in its scope's folder, for tests to read.
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

  onPreCompress(messages) {
    this.#record(`pre-compress ${messages.length}`);
  }

  async onSessionEnd(sessionId) {
    this.#record(`session-end ${sessionId}`);
  }

  onMemoryWrite(key, value) {
    this.#record(`memory-write ${key} ${value}`);
  }

  #record(event) {
    mkdirSync(this.#context.memoryDir, { recursive: true });
    appendFileSync(path.join(this.#context.memoryDir, "journal-events.log"), `${event}\n`);
  }
}
