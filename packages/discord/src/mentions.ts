import type { DiscordMessageView } from "./message-view.js";

/** A mention of the bot's user or of one of its roles addresses it; `@everyone`/`@here` never does. */
export function mentionsBot(view: DiscordMessageView, botUserId: string): boolean {
  if (view.mentionedUserIds.includes(botUserId)) return true;
  return view.mentionedRoleIds.some((roleId) => view.botRoleIds.includes(roleId));
}

/**
 * Removes the mentions that address the bot from the start of a message ("<@123> /help" → "/help"), so commands are
 * recognized and the model does not read its own id as part of the question.
 */
export function stripLeadingBotMentions(content: string, botUserId: string, botRoleIds: readonly string[]): string {
  const ids = new Set([botUserId, ...botRoleIds]);
  const leading = /^\s*<@[!&]?(\d+)>\s*[,:]?/;
  let rest = content;
  for (;;) {
    const match = leading.exec(rest);
    if (!match || !ids.has(match[1] ?? "")) return rest.trimStart();
    rest = rest.slice(match[0].length);
  }
}
