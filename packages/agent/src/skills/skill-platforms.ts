/** Where a skill is being offered: the host OS and, when known, the chat platform of the current turn. */
export interface SkillPlatformContext {
  /** Node's `process.platform` value or one of linux, macos, windows. */
  os: string;
  chatPlatform?: string;
}

const OS_ALIASES: Record<string, string> = {
  linux: "linux",
  macos: "macos",
  mac: "macos",
  darwin: "macos",
  osx: "macos",
  windows: "windows",
  win32: "windows",
  freebsd: "freebsd",
  openbsd: "openbsd",
};

function osTag(name: string): string | undefined {
  return OS_ALIASES[name.trim().toLowerCase()];
}

/**
 * `platforms` mixes two kinds of tags: operating systems (linux, macos, windows) and chat platforms (telegram,
 * discord, …). Each kind that the list mentions restricts that dimension only, so `[linux, telegram]` means "on a
 * Linux host, in Telegram chats". A missing list, an empty one or `all` means everywhere. A chat restriction is not
 * applied when the chat platform is unknown (e.g. when building a listing outside any conversation).
 */
export function isSkillAvailableOn(platforms: readonly string[] | undefined, context: SkillPlatformContext): boolean {
  if (platforms === undefined || platforms.length === 0) return true;
  const tags = platforms.map((tag) => tag.trim().toLowerCase());
  if (tags.includes("all")) return true;

  const osTags = tags.map(osTag).filter((tag): tag is string => tag !== undefined);
  const chatTags = tags.filter((tag) => osTag(tag) === undefined);

  if (osTags.length > 0 && !osTags.includes(osTag(context.os) ?? context.os.toLowerCase())) return false;
  const chat = context.chatPlatform?.trim().toLowerCase();
  if (chatTags.length > 0 && chat !== undefined && chat !== "" && !chatTags.includes(chat)) return false;
  return true;
}
