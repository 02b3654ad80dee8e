/** Who a message would notify on Discord, given its content and `allowed_mentions`. */
export interface Pings {
  everyone: boolean;
  users: string[];
  roles: string[];
  /** The author of the message replied to. */
  repliedUser: boolean;
}

/**
 * Discord's rules: without `allowed_mentions` every mention in the text pings (and a reply pings its author); with
 * it, only the kinds named in `parse` and the ids listed explicitly do, and a reply pings only with `replied_user`.
 */
export function pingsOf(content: string, allowedMentions: unknown, isReply: boolean): Pings {
  const mentionedUsers = [...content.matchAll(/<@!?(\d+)>/g)].map((m) => m[1] ?? "");
  const mentionedRoles = [...content.matchAll(/<@&(\d+)>/g)].map((m) => m[1] ?? "");
  const mentionsEveryone = /@(everyone|here)\b/.test(content);
  if (!isObject(allowedMentions)) {
    return { everyone: mentionsEveryone, users: mentionedUsers, roles: mentionedRoles, repliedUser: isReply };
  }
  const parse = Array.isArray(allowedMentions.parse) ? allowedMentions.parse : [];
  const listed = (key: string): string[] => (Array.isArray(allowedMentions[key]) ? (allowedMentions[key] as unknown[]).map(String) : []);
  return {
    everyone: mentionsEveryone && parse.includes("everyone"),
    users: mentionedUsers.filter((id) => parse.includes("users") || listed("users").includes(id)),
    roles: mentionedRoles.filter((id) => parse.includes("roles") || listed("roles").includes(id)),
    repliedUser: isReply && allowedMentions.replied_user === true,
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
