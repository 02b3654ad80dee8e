import path from "node:path";
import { describe, expect, it } from "vitest";
import { sessionFolderName, sessionsRootOf, toolResultsDirOf } from "./session-folders.js";

describe("sessionFolderName", () => {
  it.each([
    ["3f2a-uuid_1.2", "3f2a-uuid_1.2"],
    ["telegram:123/456", "telegram_123_456"],
    ["..", "_"],
    ["...hidden", "_hidden"],
    ["", "session"],
    ["ünï", "_n_"],
  ])("maps %j to %j", (id, expected) => {
    expect(sessionFolderName(id)).toBe(expected);
  });

  it("keeps names to 120 characters", () => {
    expect(sessionFolderName("x".repeat(300))).toHaveLength(120);
  });
});

describe("session folder paths", () => {
  it("puts tool results under <stateDir>/sessions/<folder>/tool-results", () => {
    expect(sessionsRootOf("/state")).toBe(path.join("/state", "sessions"));
    expect(toolResultsDirOf("/state", "a/b")).toBe(path.join("/state", "sessions", "a_b", "tool-results"));
  });
});
