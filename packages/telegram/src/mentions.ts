import type { MessageEntity } from "grammy/types";
import type { BotIdentity } from "./bot-identity.js";

/**
 * True when the entities Telegram attached to a text mention the bot: an `@username` mention (offsets are UTF-16,
 * like JavaScript strings) or a text mention of its user id.
 */
export function mentionsBot(text: string, entities: readonly MessageEntity[], bot: BotIdentity): boolean {
  const handle = `@${bot.username}`.toLowerCase();
  return entities.some((entity: MessageEntity | null) => {
    if (typeof entity !== "object" || entity === null) return false;
    // Telegram always names the user of a text mention; a hostile update may not.
    if (entity.type === "text_mention") return entity.user?.id === bot.id;
    if (entity.type !== "mention") return false;
    return text.slice(entity.offset, entity.offset + entity.length).toLowerCase() === handle;
  });
}
