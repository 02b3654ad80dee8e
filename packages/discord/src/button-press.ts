import type { InboundMessage } from "@hermes/gateway";
import { DISCORD_PLATFORM, placeOf, type ChannelPlace } from "./normalize.js";

/** A press's dedup key: Discord sends each interaction once, with its own id. */
export const BUTTON_PRESS_PREFIX = "int";

/** What the adapter read off a button interaction. */
export interface ButtonPressView {
  interactionId: string;
  /** The pressed button's `custom_id`: the `value` it was sent with. */
  customId: string;
  user: { id: string; name?: string };
  /** The bot message the button is under. */
  messageId: string;
  place: ChannelPlace;
  timestamp: number;
}

/**
 * A press as the gateway sees it: a message from the presser whose text is the button's value, in the chat (and
 * thread) of the message the button is under, always addressed to the bot. Where replies quote, they quote the bot's
 * message the button was on, since the press itself is no message Discord could quote.
 */
export function buttonPressMessage(press: ButtonPressView): InboundMessage {
  const place = placeOf(press.place);
  return {
    platform: DISCORD_PLATFORM,
    ...place,
    user: { id: press.user.id, ...(press.user.name ? { name: press.user.name } : {}), isBot: false },
    messageId: `${BUTTON_PRESS_PREFIX}${press.interactionId}`,
    text: press.customId,
    attachments: [],
    mentionedBot: true,
    timestamp: press.timestamp,
    replyToId: press.messageId,
    action: { messageId: press.messageId },
  };
}
