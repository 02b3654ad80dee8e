import { describe, expect, it } from "vitest";
import { parseAllowlist } from "./allowlist.js";

describe("parseAllowlist", () => {
  it("allows nobody when nothing is listed", () => {
    expect(parseAllowlist({})).toEqual({ allowedUsers: { everyone: false, users: [] }, rejections: [], warnings: [] });
  });

  it("reads platform:userId entries, trimming and dropping empty entries and repeats", () => {
    const parsed = parseAllowlist({ HERMES_ALLOWED_USERS: " telegram:42 , ,slack:U123,console:alice,telegram:42," });
    expect(parsed.rejections).toEqual([]);
    expect(parsed.allowedUsers).toEqual({
      everyone: false,
      users: [
        { platform: "telegram", userId: "42" },
        { platform: "slack", userId: "U123" },
        { platform: "console", userId: "alice" },
      ],
    });
  });

  it("reads the platform name case-insensitively", () => {
    const parsed = parseAllowlist({ HERMES_ALLOWED_USERS: "Discord:123" });
    expect(parsed.allowedUsers.users).toEqual([{ platform: "discord", userId: "123" }]);
  });

  it("treats * as everyone, and platform:* as everyone on that platform", () => {
    const parsed = parseAllowlist({ HERMES_ALLOWED_USERS: "*,slack:*" });
    expect(parsed.allowedUsers).toEqual({ everyone: true, users: [{ platform: "slack", userId: "*" }] });
  });

  it("adds the bare ids of the per-platform lists, with * meaning the whole platform", () => {
    const parsed = parseAllowlist({
      HERMES_ALLOWED_USERS: "telegram:1",
      TELEGRAM_ALLOWED_USERS: "1, 2",
      DISCORD_ALLOWED_USERS: "*",
      SLACK_ALLOWED_USERS: "U1,W2",
    });
    expect(parsed.rejections).toEqual([]);
    expect(parsed.allowedUsers).toEqual({
      everyone: false,
      users: [
        { platform: "telegram", userId: "1" },
        { platform: "telegram", userId: "2" },
        { platform: "discord", userId: "*" },
        { platform: "slack", userId: "U1" },
        { platform: "slack", userId: "W2" },
      ],
    });
  });

  it("explains every malformed entry of HERMES_ALLOWED_USERS", () => {
    const parsed = parseAllowlist({ HERMES_ALLOWED_USERS: "bob,irc:7,telegram:,slack:U 1,telegram:5" });
    expect(parsed.rejections).toEqual([
      {
        setting: "HERMES_ALLOWED_USERS",
        problems: [
          '"bob" is not platform:userId or *',
          '"irc:7" names an unknown platform "irc" (known: telegram, discord, slack, console)',
          '"telegram:" has no user id after the colon',
          '"slack:U 1" has a space in its user id',
        ],
      },
    ]);
    expect(parsed.allowedUsers.users).toEqual([{ platform: "telegram", userId: "5" }]);
  });

  it("wants bare ids in the per-platform lists", () => {
    const parsed = parseAllowlist({ TELEGRAM_ALLOWED_USERS: "telegram:1", SLACK_ALLOWED_USERS: "U1 U2" });
    expect(parsed.rejections).toEqual([
      { setting: "TELEGRAM_ALLOWED_USERS", problems: ['"telegram:1" must be a bare user id (no platform: prefix)'] },
      { setting: "SLACK_ALLOWED_USERS", problems: ['"U1 U2" has a space in it'] },
    ]);
  });

  it("warns about Telegram and Discord ids that are not numbers, since they can never match", () => {
    const parsed = parseAllowlist({ HERMES_ALLOWED_USERS: "telegram:@alice,slack:U1", DISCORD_ALLOWED_USERS: "bob#1234" });
    expect(parsed.rejections).toEqual([]);
    expect(parsed.warnings).toEqual([
      'HERMES_ALLOWED_USERS: "@alice" is not a numeric telegram user id, so it will never match',
      'DISCORD_ALLOWED_USERS: "bob#1234" is not a numeric discord user id, so it will never match',
    ]);
  });
});
