import { describe, expect, it } from "vitest";
import { parseCronCommand } from "./cron-command-args.js";

describe("/cron arguments", () => {
  it("lists with no arguments or `list`", () => {
    expect(parseCronCommand("")).toEqual({ action: "list" });
    expect(parseCronCommand("  LIST ")).toEqual({ action: "list" });
  });

  it("takes two tokens of schedule after `in` or `every`, one for an ISO time, five otherwise", () => {
    expect(parseCronCommand("create in 20m check the oven")).toEqual({ action: "create", schedule: "in 20m", prompt: "check the oven" });
    expect(parseCronCommand("create every 2h stretch")).toEqual({ action: "create", schedule: "every 2h", prompt: "stretch" });
    expect(parseCronCommand("create 2026-05-01T09:00Z say happy May")).toEqual({ action: "create", schedule: "2026-05-01T09:00Z", prompt: "say happy May" });
    expect(parseCronCommand("create 0 9 * * 1-5 summarise the news")).toEqual({ action: "create", schedule: "0 9 * * 1-5", prompt: "summarise the news" });
  });

  it("keeps the prompt's own line breaks", () => {
    expect(parseCronCommand("create in 1h first line\n  second line")).toEqual({ action: "create", schedule: "in 1h", prompt: "first line\n  second line" });
  });

  it("removes by id", () => {
    expect(parseCronCommand("remove ab12cd34")).toEqual({ action: "remove", id: "ab12cd34" });
  });

  it.each([
    ["create in 20m", "needs a schedule and then a prompt"],
    ["create 0 9 * *", "needs a schedule and then a prompt"],
    ["remove", "Say which task to remove"],
    ["remove a b", "Say which task to remove"],
    ["pause ab12cd34", 'Unknown /cron action "pause"'],
  ])("answers %j with usage (%s)", (args, error) => {
    const parsed = parseCronCommand(args);
    expect(parsed.action).toBe("invalid");
    if (parsed.action === "invalid") {
      expect(parsed.error).toContain(error);
      expect(parsed.error).toContain("/cron create <schedule> <prompt>");
    }
  });
});
