import { describe, expect, it } from "vitest";
import { parseCommand } from "./command.js";

describe("parseCommand", () => {
  it("parses a command with arguments", () => {
    expect(parseCommand("/model openai/gpt-4o")).toEqual({ name: "model", args: "openai/gpt-4o", addressedByName: false });
  });

  it("accepts /cmd@botname for this bot, case-insensitively", () => {
    expect(parseCommand("/Status@HermesBot", "hermesbot")).toEqual({ name: "status", args: "", addressedByName: true });
  });

  it("ignores commands addressed to another bot", () => {
    expect(parseCommand("/status@OtherBot", "hermesbot")).toBeUndefined();
  });

  it("does not treat ordinary text or paths as commands", () => {
    expect(parseCommand("hello /status")).toBeUndefined();
    expect(parseCommand("/usr/bin/env")).toBeUndefined();
    expect(parseCommand("/")).toBeUndefined();
  });

  it("keeps multi-line arguments", () => {
    expect(parseCommand("/retry\nplease")?.args).toBe("please");
  });
});
