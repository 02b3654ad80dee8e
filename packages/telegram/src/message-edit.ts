import type { Logger } from "@hermes/agent";
import type { OutboundMessage, OutboundTarget, SendResult } from "@hermes/gateway";
import { describeApiFailure, type ApiFailure } from "./api-errors.js";
import type { BotApi } from "./bot-api.js";
import { visibleTextOfHtml } from "./html-visible-text.js";
import { inlineKeyboard } from "./inline-keyboard.js";
import { editMessageOptions, telegramChatId } from "./outbound-params.js";
import { failedSend } from "./send-result.js";

export interface EditOutcome {
  result: SendResult;
  /** Telegram's refusal, for the adapter to notice a refused token. */
  failure?: ApiFailure;
}

const NOT_MODIFIED = /message is not modified/i;
const UNPARSABLE = /can't parse entities/i;

/**
 * editMessageText with the same markup, buttons and failure results as a send. An edit to what the message already
 * shows is a success; formatted text Telegram cannot parse is edited in once more as the plain words it says, so the
 * message still gets the new text rather than keeping the old one.
 */
export async function editTelegramMessage(api: BotApi, target: OutboundTarget, messageId: string, message: OutboundMessage, logger: Logger): Promise<EditOutcome> {
  if (!/^\d+$/.test(messageId)) return { result: { ok: false, retryable: false, error: `"${messageId}" is not a Telegram message id` } };
  const keyboard = inlineKeyboard(message.buttons);
  if (!keyboard.ok) return { result: { ok: false, retryable: false, error: keyboard.error } };
  const attempt = async (text: string, format: OutboundMessage["format"]): Promise<EditOutcome> => {
    try {
      await api.editMessageText(telegramChatId(target.chatId), Number(messageId), text, editMessageOptions(format, keyboard.keyboard));
      return { result: { ok: true, messageId } };
    } catch (error) {
      const failure = describeApiFailure(error);
      if (failure.kind === "rejected" && NOT_MODIFIED.test(failure.message)) return { result: { ok: true, messageId } };
      return { result: failedSend(failure), failure };
    }
  };
  const first = await attempt(message.text, message.format);
  if (message.format !== "markdown" || first.failure?.kind !== "rejected" || !UNPARSABLE.test(first.failure.message)) return first;
  logger.warn("Telegram could not parse an edit's HTML; editing in plain text", { error: first.failure.message });
  return attempt(visibleTextOfHtml(message.text), "plain");
}
