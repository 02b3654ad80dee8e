import type { AllowedUser, AllowedUsers } from "./gateway-config.js";

export const ALLOWLIST_PLATFORMS = ["telegram", "discord", "slack", "console"] as const;

/** Settings that list bare user ids of one platform. */
export const PLATFORM_ALLOWLIST_SETTINGS = {
  TELEGRAM_ALLOWED_USERS: "telegram",
  DISCORD_ALLOWED_USERS: "discord",
  SLACK_ALLOWED_USERS: "slack",
} as const;

export type PlatformAllowlistSetting = keyof typeof PLATFORM_ALLOWLIST_SETTINGS;
export type AllowlistSetting = "HERMES_ALLOWED_USERS" | PlatformAllowlistSetting;

export interface AllowlistRejection {
  readonly setting: AllowlistSetting;
  /** One explanation per bad entry. */
  readonly problems: readonly string[];
}

export interface ParsedAllowlist {
  readonly allowedUsers: AllowedUsers;
  readonly rejections: readonly AllowlistRejection[];
  readonly warnings: readonly string[];
}

// Telegram and Discord ids are numbers; a @username there is a common mistake that would silently never match.
const NUMERIC_ID_PLATFORMS: ReadonlySet<string> = new Set(["telegram", "discord"]);

const WILDCARD = "*";

/** Combines `HERMES_ALLOWED_USERS` (`platform:userId` or `*`) with the per-platform lists of bare ids. */
export function parseAllowlist(lists: Partial<Record<AllowlistSetting, string>>): ParsedAllowlist {
  const users = new Map<string, AllowedUser>();
  const rejections: AllowlistRejection[] = [];
  const warnings: string[] = [];
  let everyone = false;

  const add = (setting: AllowlistSetting, user: AllowedUser): void => {
    if (user.userId !== WILDCARD && NUMERIC_ID_PLATFORMS.has(user.platform) && !/^[0-9]+$/.test(user.userId)) {
      const id = JSON.stringify(user.userId);
      warnings.push(`${setting}: ${id} is not a numeric ${user.platform} user id, so it will never match`);
    }
    users.set(`${user.platform}:${user.userId}`, user);
  };

  const combined = lists.HERMES_ALLOWED_USERS;
  if (combined !== undefined) {
    const problems: string[] = [];
    for (const entry of splitEntries(combined)) {
      if (entry === WILDCARD) {
        everyone = true;
        continue;
      }
      const parsed = parseQualifiedEntry(entry);
      if (typeof parsed === "string") problems.push(parsed);
      else add("HERMES_ALLOWED_USERS", parsed);
    }
    if (problems.length > 0) rejections.push({ setting: "HERMES_ALLOWED_USERS", problems });
  }

  const platformLists = Object.entries(PLATFORM_ALLOWLIST_SETTINGS) as Array<[PlatformAllowlistSetting, string]>;
  for (const [setting, platform] of platformLists) {
    const list = lists[setting];
    if (list === undefined) continue;
    const problems: string[] = [];
    for (const entry of splitEntries(list)) {
      const problem = bareIdProblem(entry);
      if (problem) problems.push(problem);
      else add(setting, { platform, userId: entry });
    }
    if (problems.length > 0) rejections.push({ setting, problems });
  }

  return { allowedUsers: { everyone, users: [...users.values()] }, rejections, warnings };
}

function splitEntries(list: string): string[] {
  return list
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
}

function parseQualifiedEntry(entry: string): AllowedUser | string {
  const quoted = JSON.stringify(entry);
  const colon = entry.indexOf(":");
  if (colon < 0) return `${quoted} is not platform:userId or *`;
  const platform = entry.slice(0, colon).trim().toLowerCase();
  const userId = entry.slice(colon + 1).trim();
  if (!(ALLOWLIST_PLATFORMS as readonly string[]).includes(platform)) {
    const known = ALLOWLIST_PLATFORMS.join(", ");
    return `${quoted} names an unknown platform ${JSON.stringify(platform)} (known: ${known})`;
  }
  if (userId === "") return `${quoted} has no user id after the colon`;
  if (/\s/.test(userId)) return `${quoted} has a space in its user id`;
  return { platform, userId };
}

function bareIdProblem(entry: string): string | undefined {
  const quoted = JSON.stringify(entry);
  if (entry.includes(":")) return `${quoted} must be a bare user id (no platform: prefix)`;
  if (/\s/.test(entry)) return `${quoted} has a space in it`;
  return undefined;
}
