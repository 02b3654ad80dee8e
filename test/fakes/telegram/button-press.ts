import type { CallbackQuery, Update } from "grammy/types";
import type { BotApiState, SentMessage } from "./bot-api-state.js";
import { callbackValues } from "./inline-markup.js";
import { ADA, toUser, type FakeUser } from "./message-builder.js";

/** Who presses: a user, or just a user id (named "User <id>"). */
export type Presser = FakeUser | number;

/**
 * A user presses the button with `callbackData` under a message the bot sent: queued as a `callback_query` update
 * carrying the message as it is now (after edits). A button the message does not show is a mistake of the test.
 */
export function pressButton(state: BotApiState, sent: Pick<SentMessage, "chatId" | "result">, callbackData: string, presser: Presser = ADA): { update: Update; callbackQueryId: string } {
  const current = state.sentMessage(sent.chatId, sent.result.message_id);
  if (!current) throw new Error(`fake telegram: the bot sent no message ${sent.result.message_id} in chat ${sent.chatId}`);
  const shown = callbackValues(current.replyMarkup);
  if (!shown.includes(callbackData)) throw new Error(`fake telegram: message ${sent.result.message_id} shows no button "${callbackData}" (it shows ${JSON.stringify(shown)})`);
  const from = toUser(typeof presser === "number" ? { id: presser, first_name: `User ${presser}` } : presser);
  const callbackQueryId = state.nextCallbackQueryId();
  state.openCallbackQueries.add(callbackQueryId);
  const query: CallbackQuery = { id: callbackQueryId, from, message: structuredClone(current.result), chat_instance: `instance${sent.chatId}`, data: callbackData };
  return { update: state.updates.push({ callback_query: query }), callbackQueryId };
}
