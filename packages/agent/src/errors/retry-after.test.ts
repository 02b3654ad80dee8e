import { describe, it, expect } from "vitest";
import { parseRetryAfterMs } from "./retry-after.js";

const ONE_HOUR_MS = 60 * 60 * 1000;

describe("parseRetryAfterMs from headers", () => {
  it("reads retry-after-ms as milliseconds, in any header case", () => {
    expect(parseRetryAfterMs({ headers: { "retry-after-ms": "1500" } })).toBe(1500);
    expect(parseRetryAfterMs({ headers: { "Retry-After-Ms": "250.4" } })).toBe(251);
  });

  it("reads retry-after as seconds, fractional included", () => {
    expect(parseRetryAfterMs({ headers: { "retry-after": "30" } })).toBe(30_000);
    expect(parseRetryAfterMs({ headers: { "Retry-After": "1.5" } })).toBe(1500);
    expect(parseRetryAfterMs({ headers: { "retry-after": " 0 " } })).toBe(0);
  });

  it("reads retry-after as an HTTP date relative to the injected clock", () => {
    const now = Date.parse("Wed, 21 Oct 2015 07:28:00 GMT");
    expect(parseRetryAfterMs({ headers: { "retry-after": "Wed, 21 Oct 2015 07:28:45 GMT" }, now })).toBe(45_000);
  });

  it("ignores an HTTP date that already passed", () => {
    const now = Date.parse("Wed, 21 Oct 2015 07:30:00 GMT");
    expect(parseRetryAfterMs({ headers: { "retry-after": "Wed, 21 Oct 2015 07:28:45 GMT" }, now })).toBeUndefined();
  });

  it("prefers retry-after-ms over retry-after, and headers over the message", () => {
    expect(parseRetryAfterMs({ headers: { "retry-after": "3", "retry-after-ms": "2750" } })).toBe(2750);
    expect(parseRetryAfterMs({ headers: { "retry-after": "3" }, message: "Please try again in 20s." })).toBe(3000);
  });

  it.each(["-5", "soon", "", "12abc", "NaN", "Infinity"])("treats retry-after %j as absent", (value) => {
    expect(parseRetryAfterMs({ headers: { "retry-after": value, "retry-after-ms": value } })).toBeUndefined();
  });

  it("falls through an unusable header to the next source", () => {
    expect(parseRetryAfterMs({ headers: { "retry-after-ms": "-100", "retry-after": "4" } })).toBe(4000);
    expect(parseRetryAfterMs({ headers: { "retry-after": "later" }, message: "retry after 30 seconds" })).toBe(30_000);
  });

  it("caps a long wait at one hour", () => {
    expect(parseRetryAfterMs({ headers: { "retry-after": "86400" } })).toBe(ONE_HOUR_MS);
    expect(parseRetryAfterMs({ headers: { "retry-after-ms": "99999999" } })).toBe(ONE_HOUR_MS);
  });
});

describe("parseRetryAfterMs from message wording", () => {
  it.each([
    ["429 Rate limit reached for gpt-4o on tokens per min (TPM). Please try again in 20s.", 20_000],
    ["Rate limit exceeded, try again in 1.5 seconds", 1500],
    ["Too many requests; retry after 30 seconds", 30_000],
    ["* Quota exceeded for metric: generate_content_free_tier_requests, limit: 10\nPlease retry in 2.5s.", 2500],
    ["Please try again in 250ms.", 250],
    ["Limit reached, retry in 1m30s", 90_000],
    ["Please try again in 6m0s. Visit the dashboard for details.", 360_000],
    ["Please try again in 1m12.5s.", 72_500],
    ["Try again in 2 minutes", 120_000],
    ["Gemini: Please retry in 44.386797195s.", 44_387],
    ['{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"17s"}', 17_000],
    ["Server busy, retrying in about 5 seconds", 5000],
  ])("reads %j", (message, expected) => {
    expect(parseRetryAfterMs({ message })).toBe(expected);
  });

  it("caps a long wait in the message at one hour", () => {
    expect(parseRetryAfterMs({ message: "Daily limit hit, try again in 7h12m" })).toBe(ONE_HOUR_MS);
  });

  it.each([
    "429 Rate limit reached for requests",
    "Please try again later.",
    "retry in a moment",
    "try again in 5 months",
    "",
  ])("finds no delay in %j", (message) => {
    expect(parseRetryAfterMs({ message })).toBeUndefined();
  });

  it("returns undefined when nothing is given", () => {
    expect(parseRetryAfterMs({})).toBeUndefined();
  });
});
