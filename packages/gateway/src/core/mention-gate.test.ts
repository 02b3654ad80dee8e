import { describe, expect, it } from "vitest";
import { isAddressed } from "./mention-gate.js";
import { inbound } from "./testing.js";

const group = { id: "g", type: "group" as const };

describe("isAddressed", () => {
  it("always answers direct messages", () => {
    expect(isAddressed(inbound(), { mode: "mention", isCommand: false })).toBe(true);
  });

  it("ignores group chatter that does not address the bot", () => {
    expect(isAddressed(inbound({ chat: group }), { mode: "mention", isCommand: false })).toBe(false);
  });

  it("answers a mention, a reply to the bot, or a command", () => {
    expect(isAddressed(inbound({ chat: group, mentionedBot: true }), { mode: "mention", isCommand: false })).toBe(true);
    expect(isAddressed(inbound({ chat: group, replyTo: { messageId: "1", fromBot: true } }), { mode: "mention", isCommand: false })).toBe(true);
    expect(isAddressed(inbound({ chat: group, replyTo: { messageId: "1", fromBot: false } }), { mode: "mention", isCommand: false })).toBe(false);
    expect(isAddressed(inbound({ chat: group }), { mode: "mention", isCommand: true })).toBe(true);
  });

  it("answers everything in a chat set to 'all'", () => {
    expect(isAddressed(inbound({ chat: group }), { mode: "all", isCommand: false })).toBe(true);
  });
});
