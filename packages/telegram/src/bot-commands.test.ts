import { describe, expect, it } from "vitest";
import { COMMANDS } from "@hermes/gateway";
import { telegramCommands } from "./bot-commands.js";

describe("telegramCommands", () => {
  it("lists every gateway command for Telegram's menu", () => {
    const menu = telegramCommands(COMMANDS);
    expect(menu.map((entry) => entry.command)).toEqual(COMMANDS.map((command) => command.name));
    for (const entry of menu) expect(entry.description.length).toBeGreaterThan(0);
  });

  it("drops names Telegram refuses and shortens long descriptions", () => {
    const menu = telegramCommands([
      { name: "Fine", description: "ok" },
      { name: "has-dash", description: "no" },
      { name: "fine", description: "duplicate" },
      { name: "long", description: "x".repeat(300) },
    ]);
    expect(menu.map((entry) => [entry.command, entry.description.length])).toEqual([
      ["fine", 2],
      ["long", 256],
    ]);
  });
});
