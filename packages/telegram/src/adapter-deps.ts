import type { Logger } from "@hermes/agent";

/** What the gateway process gives the Telegram adapter besides its settings. */
export interface TelegramAdapterDeps {
  logger: Logger;
  /** Where downloaded files are saved (inside the agent's workspace, so its file tools can open them). */
  attachmentsDir: string;
  /** Files above this are refused (default 20 MB, also what the cloud Bot API lets bots download). */
  maxAttachmentBytes?: number;
  /** The name the gateway knows the bot by (HERMES_BOT_NAME), used to match `/cmd@name`. */
  botName?: string;
  /** The clock for `retryAt` in status reports (default Date.now); Telegram stamps each message itself. */
  now?: () => number;
  /** Pauses between retries (default: a timer that the signal cuts short). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** In [0, 1), for backoff jitter (default Math.random). */
  random?: () => number;
  /** For file downloads (default the global fetch). */
  fetch?: typeof fetch;
  /** Seconds a getUpdates call waits for news (default 30). */
  pollTimeoutSeconds?: number;
}

export const DEFAULT_MAX_ATTACHMENT_BYTES = 20 * 1024 * 1024;
