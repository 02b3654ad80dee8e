import { Routes, type REST } from "discord.js";
import type { OutboundMessage, SendResult } from "@hermes/gateway";
import { editedMessageBody } from "./outbound-body.js";
import { sendFailure } from "./send-failure.js";

/**
 * Edits a message the bot posted in a channel: the new text (Discord renders the model's markdown as it is) and exactly
 * the message's buttons. Discord accepts an edit to the same text, so an unchanged edit is a success as the contract
 * asks; a message deleted meanwhile is a final failure (Unknown Message), a rate limit a retryable one with its wait.
 */
export async function editChannelMessage(rest: REST, channelId: string, messageId: string, message: OutboundMessage): Promise<SendResult> {
  try {
    await rest.patch(Routes.channelMessage(channelId, messageId), { body: editedMessageBody(message.text, message.buttons) });
    return { ok: true, messageId };
  } catch (error) {
    return sendFailure(error);
  }
}

/** Edits are superseded by the next one soon (streaming), so a rate-limited edit comes back at once instead of queueing. */
export function isEditRequest(limit: { method: string }): boolean {
  return limit.method.toUpperCase() === "PATCH";
}
