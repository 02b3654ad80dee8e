import { describe, expect, it } from "vitest";
import { isSkillAvailableOn } from "./skill-platforms.js";

describe("isSkillAvailableOn", () => {
  it("treats a missing or empty list and [all] as everywhere", () => {
    expect(isSkillAvailableOn(undefined, { os: "linux" })).toBe(true);
    expect(isSkillAvailableOn([], { os: "win32", chatPlatform: "slack" })).toBe(true);
    expect(isSkillAvailableOn(["all"], { os: "darwin", chatPlatform: "telegram" })).toBe(true);
    expect(isSkillAvailableOn(["linux", "ALL"], { os: "win32" })).toBe(true);
  });

  it("filters by operating system, accepting Node's names and common aliases", () => {
    expect(isSkillAvailableOn(["linux"], { os: "linux" })).toBe(true);
    expect(isSkillAvailableOn(["linux"], { os: "darwin" })).toBe(false);
    expect(isSkillAvailableOn(["macos", "windows"], { os: "darwin" })).toBe(true);
    expect(isSkillAvailableOn(["macos", "windows"], { os: "win32" })).toBe(true);
    expect(isSkillAvailableOn(["macos", "windows"], { os: "linux" })).toBe(false);
  });

  it("filters by chat platform only when the current one is known", () => {
    expect(isSkillAvailableOn(["telegram"], { os: "linux", chatPlatform: "telegram" })).toBe(true);
    expect(isSkillAvailableOn(["telegram"], { os: "linux", chatPlatform: "Discord" })).toBe(false);
    expect(isSkillAvailableOn(["telegram"], { os: "linux" })).toBe(true);
  });

  it("requires both dimensions when a list names an OS and a chat platform", () => {
    expect(isSkillAvailableOn(["linux", "slack"], { os: "linux", chatPlatform: "slack" })).toBe(true);
    expect(isSkillAvailableOn(["linux", "slack"], { os: "darwin", chatPlatform: "slack" })).toBe(false);
    expect(isSkillAvailableOn(["linux", "slack"], { os: "linux", chatPlatform: "discord" })).toBe(false);
  });
});
