// A provider asking for more than an hour is better served by a fallback model than by waiting.
const MAX_RETRY_AFTER_MS = 60 * 60 * 1000;

const UNIT = String.raw`(?:ms|msecs?|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?)(?![a-z])`;
const DURATION = String.raw`(?:\d+(?:\.\d+)?\s*${UNIT}\s*)+`;
const RETRY_PHRASE = new RegExp(
  String.raw`\b(?:try again|retry|retrying)\s+(?:in|after)\s+(?:about\s+|approximately\s+|~)?(${DURATION})`,
  "i",
);
const DURATION_PART = new RegExp(String.raw`(\d+(?:\.\d+)?)\s*(${UNIT})`, "gi");
// Gemini puts the delay into the error details as a protobuf Duration: "retryDelay": "44s".
const GOOGLE_RETRY_DELAY = /"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"/;
const PLAIN_NUMBER = /^\s*-?\d+(?:\.\d+)?\s*$/;

export interface RetryAfterInput {
  headers?: Record<string, string>;
  message?: string;
  /** Epoch milliseconds that an HTTP-date Retry-After is measured from; defaults to Date.now(). */
  now?: number;
}

function headerValue(headers: Record<string, string> | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return value;
  }
  return undefined;
}

function acceptDelay(ms: number): number | undefined {
  if (!Number.isFinite(ms) || ms < 0) return undefined;
  return Math.min(Math.ceil(ms), MAX_RETRY_AFTER_MS);
}

function parsePlainNumber(value: string | undefined): number | undefined {
  if (value === undefined || !PLAIN_NUMBER.test(value)) return undefined;
  return Number(value);
}

function fromRetryAfterHeader(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const seconds = parsePlainNumber(value);
  if (seconds !== undefined) return acceptDelay(seconds * 1000);
  // An HTTP-date always names a weekday or month; requiring a letter keeps Date.parse from reading "12" as a year.
  if (!/[a-z]/i.test(value)) return undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : acceptDelay(at - now);
}

function unitMs(unit: string): number {
  const lower = unit.toLowerCase();
  if (lower === "ms" || lower.startsWith("msec") || lower.startsWith("milli")) return 1;
  if (lower.startsWith("h")) return 60 * 60 * 1000;
  if (lower.startsWith("m")) return 60 * 1000;
  return 1000;
}

function durationMs(text: string): number {
  let total = 0;
  for (const part of text.matchAll(DURATION_PART)) {
    total += Number(part[1]) * unitMs(part[2] ?? "s");
  }
  return total;
}

function fromMessage(message: string | undefined): number | undefined {
  if (!message) return undefined;
  const phrase = RETRY_PHRASE.exec(message);
  if (phrase?.[1]) return acceptDelay(durationMs(phrase[1]));
  const googleDelay = GOOGLE_RETRY_DELAY.exec(message);
  if (googleDelay?.[1]) return acceptDelay(Number(googleDelay[1]) * 1000);
  return undefined;
}

/**
 * How long the provider asked us to wait, in milliseconds, or undefined when it did not say.
 * Sources in order of precision: `retry-after-ms`, `retry-after`, then wording in the message.
 * An unusable source (negative, garbage, a date in the past) is skipped, not trusted.
 */
export function parseRetryAfterMs(input: RetryAfterInput): number | undefined {
  const now = input.now ?? Date.now();
  const retryAfterMsHeader = parsePlainNumber(headerValue(input.headers, "retry-after-ms"));
  const fromMsHeader = retryAfterMsHeader === undefined ? undefined : acceptDelay(retryAfterMsHeader);
  return (
    fromMsHeader ??
    fromRetryAfterHeader(headerValue(input.headers, "retry-after"), now) ??
    fromMessage(input.message)
  );
}
