import type { ApiError } from "./bot-api-state.js";

export interface SendRate {
  perSecond: number;
  /** How many may come at once after a quiet spell. */
  burst: number;
}

/** The send limits the stand-in enforces, per bot token (the fake serves one). */
export interface TelegramRateLimits {
  perChat: SendRate;
  /** On top of `perChat`, for groups, supergroups and channels (negative chat ids). */
  perGroup: SendRate;
  global: SendRate;
  /**
   * How early a request may arrive before its turn and still pass, in ms. The bot paces by when it sends, the server
   * counts by when calls arrive, and arrivals jitter: the first call of a burst on a new connection waits for the
   * handshake while a later one on a warm connection does not, and in tests the stand-in shares a busy event loop
   * with the gateway, so a bot exactly on its limits looks early. The sustained rates are enforced exactly.
   */
  toleranceMs: number;
}

/**
 * Telegram's published limits: about 1 a second per chat with bursts of 3, 20 a minute per group, 30 a second
 * overall; a second of arrival jitter is tolerated (retry_after's own granularity).
 */
export const TELEGRAM_PUBLISHED_LIMITS: TelegramRateLimits = {
  perChat: { perSecond: 1, burst: 3 },
  perGroup: { perSecond: 20 / 60, burst: 20 },
  global: { perSecond: 30, burst: 30 },
  toleranceMs: 1_000,
};

/**
 * The methods that put something into a chat (or show something there, like "typing…") count against the limits;
 * reading methods (getUpdates, getMe, getFile, getWebhookInfo) and bot set-up (setMyCommands, setWebhook,
 * deleteWebhook) do not.
 */
export const PACED_METHODS: ReadonlySet<string> = new Set([
  "sendMessage",
  "sendChatAction",
  "editMessageText",
  "editMessageCaption",
  "editMessageMedia",
  "editMessageReplyMarkup",
  "sendPhoto",
  "sendDocument",
  "sendAudio",
  "sendVoice",
  "sendVideo",
  "sendAnimation",
  "sendSticker",
  "sendMediaGroup",
  "sendLocation",
  "sendContact",
  "sendPoll",
  "copyMessage",
  "forwardMessage",
]);

export interface RateLimitedCall {
  method: string;
  chatId: string;
  /** Which limit refused it. */
  limit: "chat" | "group" | "global";
  retryAfter: number;
}

type Limit = RateLimitedCall["limit"];

/** Arrival times add up fractions of a millisecond; their rounding must not refuse a call that is exactly on time. */
const ROUNDING = 1e-6;

/**
 * Enforces the limits like Telegram's flood control: a call over any of them is refused with 429 and the seconds to
 * wait. Only calls that succeed count against them. Each limit is a generic cell rate algorithm (a token bucket written as "the
 * theoretical arrival time" of the next call), kept apart from the gateway's own token buckets on purpose.
 */
export class FloodControl {
  readonly refused: RateLimitedCall[] = [];
  private readonly nextArrival = new Map<string, number>();

  constructor(
    private readonly limits: TelegramRateLimits,
    private readonly now: () => number,
  ) {}

  /** The 429 to answer, or undefined when the call is within every limit. */
  check(method: string, params: Record<string, unknown>): ApiError | undefined {
    if (!PACED_METHODS.has(method)) return undefined;
    const at = this.now();
    let worst: { waitMs: number; limit: Limit } | undefined;
    for (const [key, rate, limit] of this.cellsOf(params)) {
      const interval = 1000 / rate.perSecond;
      const tolerance = (rate.burst - 1) * interval + this.limits.toleranceMs;
      const waitMs = Math.max(this.nextArrival.get(key) ?? at, at) - at - tolerance;
      if (waitMs > ROUNDING && (!worst || waitMs > worst.waitMs)) worst = { waitMs, limit };
    }
    if (!worst) return undefined;
    const retryAfter = Math.max(1, Math.ceil(worst.waitMs / 1000));
    this.refused.push({ method, chatId: String(params.chat_id ?? ""), limit: worst.limit, retryAfter });
    return { error_code: 429, description: `Too Many Requests: retry after ${retryAfter}`, parameters: { retry_after: retryAfter } };
  }

  /** Counts a call that went through against the limits (a refused or invalid one, which showed nothing, does not count). */
  record(method: string, params: Record<string, unknown>): void {
    if (!PACED_METHODS.has(method)) return;
    const at = this.now();
    for (const [key, rate] of this.cellsOf(params)) this.nextArrival.set(key, Math.max(this.nextArrival.get(key) ?? at, at) + 1000 / rate.perSecond);
    this.forgetIdle(at);
  }

  private cellsOf(params: Record<string, unknown>): Array<[string, SendRate, Limit]> {
    const chatId = String(params.chat_id ?? "");
    const cells: Array<[string, SendRate, Limit]> = [[`chat:${chatId}`, this.limits.perChat, "chat"]];
    if (chatId.trim().startsWith("-")) cells.push([`group:${chatId}`, this.limits.perGroup, "group"]);
    cells.push(["global", this.limits.global, "global"]);
    return cells;
  }

  /** A chat whose next arrival time has passed is as good as new. */
  private forgetIdle(at: number): void {
    if (this.nextArrival.size < 10_000) return;
    for (const [key, next] of this.nextArrival) if (next <= at) this.nextArrival.delete(key);
  }
}
