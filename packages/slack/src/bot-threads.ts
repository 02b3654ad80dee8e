import { RecentKeys } from "./recent-keys.js";

/**
 * Threads the bot has posted in, so that a reply there without a mention still reaches it. Kept in memory (the most
 * recent 10,000 threads): after a restart a thread needs one new mention before plain replies are answered again.
 */
export class BotThreads {
  private readonly threads: RecentKeys;

  constructor(capacity = 10_000) {
    this.threads = new RecentKeys(capacity);
  }

  remember(channel: string, threadTs: string): void {
    this.threads.add(`${channel}:${threadTs}`);
  }

  has(channel: string, threadTs: string): boolean {
    return this.threads.has(`${channel}:${threadTs}`);
  }
}
