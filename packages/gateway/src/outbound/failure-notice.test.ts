import { describe, expect, it } from "vitest";
import { failureNoticeText, shortFailureReason } from "./failure-notice.js";

describe("shortFailureReason", () => {
  it("hides the details of connection errors, which can quote URLs with tokens", () => {
    expect(shortFailureReason("request to https://api.telegram.org/bot123456:ABC/sendMessage failed", true)).toBe(
      "the chat service could not be reached",
    );
  });

  it("quotes a rejection on one line, redacted and clipped", () => {
    expect(shortFailureReason("Bad Request:\n  message is too long", false)).toBe("the chat service rejected it: Bad Request: message is too long");
    expect(shortFailureReason("invalid token xoxb-1234567890-abcdefghij", false)).toBe("the chat service rejected it: invalid token [REDACTED]");
    const long = shortFailureReason("x".repeat(500), false);
    expect(long.endsWith("…")).toBe(true);
    expect(long.length).toBeLessThan(170);
    expect(shortFailureReason("  ", false)).toBe("the chat service rejected it");
  });
});

describe("failureNoticeText", () => {
  it("apologises for the whole reply or for what is left of it", () => {
    expect(failureNoticeText("it was empty", false)).toBe("Sorry, I couldn't deliver my reply (it was empty). Please try again.");
    expect(failureNoticeText("x", true)).toBe("Sorry, I couldn't deliver the rest of my reply (x). Please try again.");
  });
});
