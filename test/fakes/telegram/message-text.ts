import type { ApiAnswer, Params } from "./api-answer.js";
import { error } from "./api-answer.js";
import { parseTelegramHtml } from "./telegram-html.js";

export const TEXT_LIMIT = 4096;

export interface MessageText {
  raw: string;
  visible: string;
  parseMode: string | undefined;
}

/** The `text` and `parse_mode` of sendMessage or editMessageText as Telegram checks them, or the error it answers. */
export function readMessageText(params: Params, tooLong: string): { ok: true; text: MessageText } | { ok: false; answer: ApiAnswer } {
  const raw = typeof params.text === "string" ? params.text : "";
  const parseMode = typeof params.parse_mode === "string" ? params.parse_mode : undefined;
  let visible = raw;
  if (parseMode !== undefined) {
    if (parseMode !== "HTML") return { ok: false, answer: error(400, `Bad Request: unsupported parse_mode ${parseMode}`) };
    const parsed = parseTelegramHtml(raw);
    if (!parsed.ok) return { ok: false, answer: error(400, parsed.error) };
    visible = parsed.text;
  }
  if (visible.trim() === "") return { ok: false, answer: error(400, "Bad Request: message text is empty") };
  if (visible.length > TEXT_LIMIT) return { ok: false, answer: error(400, tooLong) };
  return { ok: true, text: { raw, visible, parseMode } };
}
