import type { InlineKeyboardButton, InlineKeyboardMarkup } from "grammy/types";
import { objectParam } from "./api-answer.js";

export type MarkupCheck = { ok: true; markup: InlineKeyboardMarkup | undefined } | { ok: false; error: string };

const MAX_CALLBACK_DATA_BYTES = 64;
const STYLES: ReadonlySet<string> = new Set(["danger", "success", "primary"]);

/**
 * Reads `reply_markup` the way Telegram checks an inline keyboard of callback buttons: rows of buttons, each with a
 * text and 1–64 bytes of callback_data. An empty keyboard is no keyboard. Other keyboards are outside the fake.
 */
export function readInlineMarkup(value: unknown): MarkupCheck {
  if (value === undefined) return { ok: true, markup: undefined };
  const markup = objectParam(value);
  const rows = markup?.inline_keyboard;
  if (!Array.isArray(rows) || !rows.every((row) => Array.isArray(row))) return { ok: false, error: "Bad Request: can't parse reply keyboard markup JSON object" };
  const keyboard: InlineKeyboardButton[][] = [];
  for (const row of rows as unknown[][]) {
    const buttons: InlineKeyboardButton[] = [];
    for (const raw of row) {
      const button = objectParam(raw);
      if (!button || typeof button.text !== "string" || button.text.trim() === "") return { ok: false, error: "Bad Request: text buttons are unallowed in the inline keyboard" };
      const data = button.callback_data;
      if (typeof data !== "string" || data === "" || Buffer.byteLength(data, "utf8") > MAX_CALLBACK_DATA_BYTES) return { ok: false, error: "Bad Request: BUTTON_DATA_INVALID" };
      if (button.style !== undefined && !STYLES.has(String(button.style))) return { ok: false, error: "Bad Request: BUTTON_STYLE_INVALID" };
      buttons.push(button.style === undefined ? { text: button.text, callback_data: data } : { text: button.text, callback_data: data, style: button.style as "danger" | "success" | "primary" });
    }
    if (buttons.length > 0) keyboard.push(buttons);
  }
  return { ok: true, markup: keyboard.length > 0 ? { inline_keyboard: keyboard } : undefined };
}

/** The callback_data of every button, row by row. */
export function callbackValues(markup: InlineKeyboardMarkup | undefined): string[] {
  return (markup?.inline_keyboard ?? []).flat().flatMap((button) => ("callback_data" in button && button.callback_data !== undefined ? [button.callback_data] : []));
}
