import type { webApi } from "@slack/bolt";
import type { Logger } from "@hermes/agent";
import { platformErrorCode } from "./web-api-failure.js";

/**
 * The "working on it" reaction (:eyes:) on a message the bot has taken on, removed when the gateway is done with it.
 * A removal waits for a still-running add, so a fast answer cannot leave the reaction behind.
 */
export class WorkingReaction {
  private readonly pending = new Map<string, Promise<void>>();

  constructor(
    private readonly client: webApi.WebClient,
    private readonly logger: Logger,
    /** Sees each failure too (a refused bot token shows here first when the bot has nothing to say yet). */
    private readonly onFailure: (error: unknown) => void = () => {},
    private readonly name = "eyes",
  ) {}

  add(channel: string, ts: string): void {
    const key = `${channel}:${ts}`;
    const adding = this.call("add", channel, ts).finally(() => {
      if (this.pending.get(key) === adding) this.pending.delete(key);
    });
    this.pending.set(key, adding);
  }

  async remove(channel: string, ts: string): Promise<void> {
    await this.pending.get(`${channel}:${ts}`);
    await this.call("remove", channel, ts);
  }

  private async call(action: "add" | "remove", channel: string, ts: string): Promise<void> {
    try {
      if (action === "add") await this.client.reactions.add({ channel, timestamp: ts, name: this.name });
      else await this.client.reactions.remove({ channel, timestamp: ts, name: this.name });
    } catch (error) {
      const code = platformErrorCode(error);
      // Already there, or already gone (someone removed it by hand): the reaction is where it should be.
      if (code === "already_reacted" || code === "no_reaction") return;
      this.onFailure(error);
      this.logger.warn(`slack reaction could not be ${action === "add" ? "added" : "removed"}`, { channel, error: code ?? String(error) });
    }
  }
}
