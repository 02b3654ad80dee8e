import { randomUUID } from "node:crypto";
import type { AgentCallbacks, HermesAgent, HermesAgentResult } from "@hermes/agent";
import type { Message } from "@mariozechner/pi-ai";

/**
 * One terminal conversation: the transcript lives in memory for the life of the process and each message runs the
 * agent on it. A run can be interrupted; `/new` starts over.
 */
export class Conversation {
  private history: Message[] = [];
  private sessionId = randomUUID();
  private running: AbortController | undefined;

  constructor(private readonly agent: HermesAgent) {}

  get busy(): boolean {
    return this.running !== undefined;
  }

  reset(): void {
    this.history = [];
    this.sessionId = randomUUID();
  }

  /** Stops the run in progress, if any; returns whether there was one. */
  interrupt(): boolean {
    if (!this.running) return false;
    this.running.abort();
    return true;
  }

  async send(text: string, callbacks?: AgentCallbacks): Promise<HermesAgentResult> {
    const controller = new AbortController();
    this.running = controller;
    try {
      const result = await this.agent.run(text, {
        history: this.history,
        sessionId: this.sessionId,
        signal: controller.signal,
        chatPlatform: "console",
        callbacks,
      });
      this.history = result.history;
      return result;
    } finally {
      this.running = undefined;
    }
  }
}
