import type { RESTPatchAPIChannelMessageJSONBody, RESTPostAPIChannelMessageJSONBody } from "discord.js";
import type { OutboundButton } from "@hermes/gateway";
import { componentsOf } from "./buttons.js";

/** Nothing the model writes pings anyone, and a reply does not ping its author; mentions still render as text. */
const NO_PINGS = { parse: [], replied_user: false };

/**
 * The body of a bot message. `allowed_mentions` with nothing to parse means no text the model writes can ping anyone —
 * not `@everyone`/`@here`, not a role, not a user — and the reply does not ping its author either; the mentions still
 * render as text. With a `nonce`, Discord answers a repeat of the same send with the message it already created
 * (`enforce_nonce`), so a retry after a lost answer does not post the reply twice.
 */
export function outboundMessageBody(text: string, replyToMessageId?: string, nonce?: string, buttons?: readonly OutboundButton[]): RESTPostAPIChannelMessageJSONBody {
  const components = componentsOf(buttons);
  return {
    content: text,
    allowed_mentions: NO_PINGS,
    // A reply to a message deleted meanwhile is still worth sending, just without the quote.
    ...(replyToMessageId ? { message_reference: { message_id: replyToMessageId, fail_if_not_exists: false } } : {}),
    ...(nonce ? { nonce, enforce_nonce: true } : {}),
    ...(components.length > 0 ? { components } : {}),
  };
}

/** The body of an edit: the new text, with exactly the given buttons (an empty list removes the ones it had). */
export function editedMessageBody(text: string, buttons?: readonly OutboundButton[]): RESTPatchAPIChannelMessageJSONBody {
  return { content: text, allowed_mentions: NO_PINGS, components: componentsOf(buttons) };
}
