import { describe, expect, it } from "vitest";
import { PLATFORM_HINTS, formattingHintFor, isKnownChatPlatform } from "./platform-hints.js";

describe("PLATFORM_HINTS", () => {
  it("gives platform-specific formatting advice", () => {
    expect(PLATFORM_HINTS.telegram).toMatch(/concise/i);
    expect(PLATFORM_HINTS.telegram).toMatch(/4096/);
    expect(PLATFORM_HINTS.discord).toMatch(/2000 characters/);
    expect(PLATFORM_HINTS.slack).toMatch(/mrkdwn/);
    expect(PLATFORM_HINTS.console).toMatch(/plain text/i);
  });
});

describe("formattingHintFor", () => {
  it("uses the built-in hint for a known platform, whatever its case", () => {
    expect(formattingHintFor("discord", undefined)).toBe(PLATFORM_HINTS.discord);
    expect(formattingHintFor(" Slack ", undefined)).toBe(PLATFORM_HINTS.slack);
  });

  it("prefers an explicit hint", () => {
    expect(formattingHintFor("telegram", "  Reply in haiku.  ")).toBe("Reply in haiku.");
    expect(formattingHintFor(undefined, "Plain text only.")).toBe("Plain text only.");
  });

  it("has nothing to say about unknown platforms or a blank hint", () => {
    expect(formattingHintFor("matrix", undefined)).toBeUndefined();
    expect(formattingHintFor("matrix", "   ")).toBeUndefined();
    expect(formattingHintFor(undefined, undefined)).toBeUndefined();
    expect(isKnownChatPlatform("toString")).toBe(false);
  });
});
