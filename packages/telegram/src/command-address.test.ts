import { describe, expect, it } from "vitest";
import { addressCommand } from "./command-address.js";

describe("addressCommand", () => {
  const username = "hermes_bot";

  it("passes ordinary text and bare commands on unchanged", () => {
    expect(addressCommand("hello /new", { username })).toEqual({ kind: "ours", text: "hello /new", namesBot: false });
    expect(addressCommand("/new please", { username })).toEqual({ kind: "ours", text: "/new please", namesBot: false });
  });

  it("marks commands naming this bot, whatever the case, and drops those naming another bot", () => {
    expect(addressCommand("/model@Hermes_Bot openai/gpt", { username })).toEqual({ kind: "ours", text: "/model@Hermes_Bot openai/gpt", namesBot: true });
    expect(addressCommand("/model@other_bot x", { username })).toEqual({ kind: "other-bot" });
  });

  it("renames the bot to the name the gateway matches commands against", () => {
    expect(addressCommand("/help@hermes_bot", { username, gatewayName: "Hermes" })).toEqual({ kind: "ours", text: "/help@Hermes", namesBot: true });
    expect(addressCommand("/help@hermes_bot now", { username, gatewayName: "My Hermes" })).toEqual({ kind: "ours", text: "/help now", namesBot: true });
    expect(addressCommand("/help@hermes_bot", { username, gatewayName: "HERMES_BOT" })).toEqual({ kind: "ours", text: "/help@hermes_bot", namesBot: true });
  });

  it("answers /start, which opens every private chat, like /help", () => {
    expect(addressCommand("/start", { username })).toEqual({ kind: "ours", text: "/help", namesBot: false });
    expect(addressCommand("/start@hermes_bot payload", { username })).toEqual({ kind: "ours", text: "/help@hermes_bot payload", namesBot: true });
  });
});
