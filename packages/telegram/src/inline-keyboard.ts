import type { OutboundButton } from "@hermes/gateway";
import type { InlineKeyboardButton, InlineKeyboardMarkup } from "grammy/types";

/** Telegram's limit on a button's callback_data. */
export const MAX_CALLBACK_DATA_BYTES = 64;

export type KeyboardOutcome = { ok: true; keyboard: InlineKeyboardMarkup | undefined } | { ok: false; error: string };

/**
 * The message's buttons as one row of an inline keyboard, each pressing back its value as callback_data. A value
 * Telegram cannot carry is the caller's mistake: cut short, it would press back another command, so it is refused.
 */
export function inlineKeyboard(buttons: readonly OutboundButton[] | undefined): KeyboardOutcome {
  if (!buttons || buttons.length === 0) return { ok: true, keyboard: undefined };
  const row: InlineKeyboardButton.CallbackButton[] = [];
  for (const button of buttons) {
    const bytes = Buffer.byteLength(button.value, "utf8");
    if (bytes === 0 || bytes > MAX_CALLBACK_DATA_BYTES) {
      return { ok: false, error: `button "${button.label}" has a value of ${bytes} bytes; Telegram carries 1–${MAX_CALLBACK_DATA_BYTES} bytes of callback_data` };
    }
    if (button.label.trim() === "") return { ok: false, error: `a button with value "${button.value}" has no label` };
    row.push(button.style ? { text: button.label, callback_data: button.value, style: button.style } : { text: button.label, callback_data: button.value });
  }
  return { ok: true, keyboard: { inline_keyboard: [row] } };
}
