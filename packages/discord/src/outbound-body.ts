import type { RESTPostAPIChannelMessageJSONBody } from "discord.js";

/**
 * The body of a bot message. `allowed_mentions` with nothing to parse means no text the model writes can ping anyone —
 * not `@everyone`/`@here`, not a role, not a user — and the reply does not ping its author either; the mentions still
 * render as text. With a `nonce`, Discord answers a repeat of the same send with the message it already created
 * (`enforce_nonce`), so a retry after a lost answer does not post the reply twice.
 */
export function outboundMessageBody(text: string, replyToMessageId?: string, nonce?: string): RESTPostAPIChannelMessageJSONBody {
  return {
    content: text,
    allowed_mentions: { parse: [], replied_user: false },
    // A reply to a message deleted meanwhile is still worth sending, just without the quote.
    ...(replyToMessageId ? { message_reference: { message_id: replyToMessageId, fail_if_not_exists: false } } : {}),
    ...(nonce ? { nonce, enforce_nonce: true } : {}),
  };
}
