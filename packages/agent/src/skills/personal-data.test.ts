import { describe, expect, it } from "vitest";
import { detectPersonalData, personalDataRefusal } from "./personal-data.js";

describe("detectPersonalData", () => {
  it.each([
    ["Write to anna.berg+bot@example.co.uk for access.", "anna.berg+bot@example.co.uk"],
    ["Contact: li.wei@公司.cn", "li.wei@公司.cn"],
  ])("finds the e-mail address in %j", (text, match) => {
    expect(detectPersonalData(text)).toEqual({ kind: "email", match });
  });

  it.each([
    ["Call +44 20 7946 0958 tomorrow", "+44 20 7946 0958"],
    ["Her number is (415) 555-0100.", "(415) 555-0100"],
    ["ring 415-555-0100 or", "415-555-0100"],
    ["US style 415.555.0100", "415.555.0100"],
    ["手机 13800138000 请联系", "13800138000"],
    ["+86 138 0013 8000", "+86 138 0013 8000"],
  ])("finds the phone number in %j", (text, match) => {
    expect(detectPersonalData(text)).toEqual({ kind: "phone", match });
  });

  it.each([
    "Released on 2025-01-31, version 1.10.2.",
    "Bind the server to 192.168.100.200 and port 8080.",
    "The Unix time 1700000000 is in November 2023.",
    "Steps: 1. search 2. read 3. answer; budget 2,000 tokens.",
  ])("leaves ordinary numbers alone: %j", (text) => {
    expect(detectPersonalData(text)).toBeUndefined();
  });

  it("finds ids, names and memory entries from the conversation, and only those", () => {
    const known = {
      ids: ["U04ABCD12", "777000111"],
      names: ["Will Hartmann", "张伟"],
      memoryEntries: ["Allergic to peanuts and lives near the harbour in Kiel", "likes tea"],
    };
    expect(detectPersonalData("Ask user U04ABCD12 first.", known)).toEqual({ kind: "id", match: "U04ABCD12" });
    expect(detectPersonalData("Greet Hartmann by name.", known)).toEqual({ kind: "name", match: "Hartmann" });
    expect(detectPersonalData("Greet will hartmann warmly.", known)).toEqual({ kind: "name", match: "Will Hartmann" });
    expect(detectPersonalData("先问候张伟。", known)).toEqual({ kind: "name", match: "张伟" });
    expect(detectPersonalData("Remember: the user is allergic to peanuts and lives near the harbour.", known)).toEqual({
      kind: "memory_entry",
      match: "Allergic to peanuts and lives near the harbour in Kiel",
    });
    expect(detectPersonalData("You will check the harbour schedule and offer tea.", known)).toBeUndefined();
    expect(detectPersonalData("Ids like U04ABCD123 are other people's.", known)).toBeUndefined();
  });

  it("explains the refusal by kind and never repeats the value", () => {
    const message = personalDataRefusal({ kind: "email", match: "a@b.io" });
    expect(message).toContain("an e-mail address");
    expect(message).toContain("Generalise");
    expect(message).not.toContain("a@b.io");
  });
});
