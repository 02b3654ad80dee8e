import { describe, expect, it } from "vitest";
import { stripLeadingBotMentions } from "./mentions.js";

describe("stripLeadingBotMentions", () => {
  it("removes the bot's user and role mentions from the front, with the punctuation after them", () => {
    expect(stripLeadingBotMentions("<@42> hi", "42", [])).toBe("hi");
    expect(stripLeadingBotMentions("<@!42>: hi", "42", [])).toBe("hi");
    expect(stripLeadingBotMentions("  <@&7>, <@42> /help", "42", ["7"])).toBe("/help");
  });

  it("keeps other people's mentions and mentions of the bot later in the text", () => {
    expect(stripLeadingBotMentions("<@43> hi", "42", [])).toBe("<@43> hi");
    expect(stripLeadingBotMentions("ask <@42> later", "42", [])).toBe("ask <@42> later");
    expect(stripLeadingBotMentions("<@&8> hi", "42", ["7"])).toBe("<@&8> hi");
  });
});
