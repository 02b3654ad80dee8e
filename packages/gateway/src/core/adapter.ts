import type { InboundMessage } from "./inbound.js";

/** Where a reply goes: the chat, its thread, and (optionally) the message it answers. */
export interface OutboundTarget {
  chatId: string;
  threadId?: string;
  replyToMessageId?: string;
}

/**
 * A button under a bot message (all of a message's buttons form one row). Pressing it comes back to the gateway as a
 * message from the person who pressed it: its text is `value`, and `InboundMessage.action` names the bot message the
 * button was on. The adapter acknowledges the press to its platform itself (so no spinner stays on the button).
 */
export interface OutboundButton {
  label: string;
  /** At most 64 bytes (Telegram's callback_data limit), e.g. "/approve k3j4h5m6 always". */
  value: string;
  style?: "primary" | "danger";
}

export interface OutboundMessage {
  text: string;
  /** "markdown": the adapter may convert it to its platform's markup; "plain": send the text as it is. */
  format: "markdown" | "plain";
  /**
   * Stable per delivered part (`d<deliveryId>p<part>`), the same on every attempt and after a restart. Adapters whose
   * platform deduplicates by a client key use it (Discord's nonce), so a resent part never shows twice.
   */
  idempotencyKey?: string;
  /**
   * Buttons under the message. On `send`, only adapters that can show buttons get them (the text says what to type
   * instead); on `edit`, the edited message shows exactly these buttons, none when absent.
   */
  buttons?: OutboundButton[];
}

/** Result of a send. A connection error may be retried; a rejection (bad markup, forbidden) may not. */
export type SendResult =
  | { ok: true; messageId?: string }
  | {
      ok: false;
      retryable: boolean;
      error: string;
      retryAfterMs?: number;
      /**
       * The request may have reached the platform (e.g. a timeout after it was sent), so the message may exist. The
       * gateway resends it as a retryable failure; `deliveryGuarantee` says whether that can show twice.
       */
      ambiguous?: boolean;
    };

/** A token bucket: `ratePerSecond` refill, at most `burst` sends at once. */
export interface RateLimit {
  ratePerSecond: number;
  burst: number;
}

/**
 * A platform's published send limits, which the gateway paces every send, typing action and acknowledgement to
 * (instead of running into 429s). Omitted parts are not paced (e.g. discord.js keeps Discord's buckets itself).
 */
export interface PacingRules {
  /** Per chat (Telegram: about 1/s with bursts of 3; Slack: about 1/s per channel). */
  perChat?: RateLimit;
  /** Per group chat, on top of `perChat` (Telegram: 20/min). */
  perGroup?: RateLimit;
  /** For the whole bot (Telegram: 30/s). */
  global?: RateLimit;
  /** Which chat ids are groups, for `perGroup` (Telegram: negative ids). */
  isGroup?(chatId: string): boolean;
}

/**
 * How an adapter's connection to its platform is doing, as shown in /healthz, /readyz and `hermes_adapter_up`:
 * `connecting` (first attempt under way), `connected` (messages flow), `retrying` (lost or refused; another attempt
 * is scheduled), `failed` (the adapter cannot go on without the operator, e.g. a setting that can never work).
 */
export type AdapterState = "connecting" | "connected" | "retrying" | "failed";

export interface AdapterStatus {
  state: AdapterState;
  /** The cause of the last failure (never a secret), e.g. "401 Unauthorized: check TELEGRAM_BOT_TOKEN". */
  error?: string;
  /** When the adapter plans its next attempt (epoch ms), while `retrying`. */
  retryAt?: number;
}

/** What the gateway gives an adapter when it starts it. */
export interface AdapterContext {
  /**
   * Reports a change of the connection's state. Adapters call it whenever the state changes (and again with a new
   * error while retrying); the gateway logs transitions, updates /readyz and the `hermes_adapter_up` gauge.
   */
  reportStatus(status: AdapterStatus): void;
  /** Hands a normalized message to the gateway; resolves once it is persisted (acknowledge the platform after). */
  receive(message: InboundMessage): Promise<void>;
  /** Registers an HTTP route on the gateway's server (webhooks). */
  route?(method: "GET" | "POST", path: string, handler: HttpHandler): void;
  /**
   * Whether the files of a message may be downloaded: only those of a sender the bot talks to (allowlisted or
   * paired). A stranger's files are listed in the message but never fetched, so nobody the operator has not approved
   * can fill the disk or the database. Rejects when that cannot be told (the database is away): the adapter then does
   * not acknowledge the message, as when `receive` rejects. Absent: every file may be fetched.
   */
  mayFetchFiles?(message: InboundMessage): Promise<boolean>;
}

export interface HttpRequestInfo {
  headers: Record<string, string>;
  rawBody: Buffer;
}

export type HttpHandler = (request: HttpRequestInfo) => Promise<{ status: number; body?: string; headers?: Record<string, string> }>;

/**
 * The contract a platform package implements. Only `start`, `stop` and `send` are required; the gateway chunks text to
 * `textLimit` before calling `send`, so an adapter never splits messages itself.
 */
export interface PlatformAdapter {
  readonly platform: string;
  /** Largest message the platform accepts, in UTF-16 code units (Telegram 4096, Discord 2000, …). */
  readonly textLimit: number;
  /** Send limits the gateway paces to; none means the adapter (or its library) paces itself. */
  readonly pacing?: PacingRules;
  /**
   * What a send after an ambiguous failure can do: "exactly-once" when the platform deduplicates by
   * `idempotencyKey` (Discord's nonce), "at-least-once" when a resend may show a part twice (default).
   */
  readonly deliveryGuarantee?: "exactly-once" | "at-least-once";
  start(context: AdapterContext): Promise<void>;
  /** Stops taking new messages; in-flight sends may finish. */
  stop(): Promise<void>;
  send(target: OutboundTarget, message: OutboundMessage): Promise<SendResult>;
  /**
   * Edits a message the bot sent earlier (streamed replies, a decided approval), when the platform allows it.
   * `messageId` is the id `send` returned; an edit to the text the message already has is a success.
   */
  edit?(target: OutboundTarget, messageId: string, message: OutboundMessage): Promise<SendResult>;
  /** Shows "typing…" (or an equivalent) in the chat; the gateway refreshes it while a run is active. */
  sendTyping?(target: OutboundTarget): Promise<void>;
  /** Called when the gateway finished (or gave up on) a message, e.g. to remove a "working on it" reaction. */
  markDone?(message: InboundMessage): Promise<void>;
  /** Converts the agent's markdown to the platform's markup (e.g. Telegram HTML); plain text otherwise. */
  formatMarkdown?(markdown: string): string;
}
