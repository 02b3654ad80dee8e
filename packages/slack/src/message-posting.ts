import type { webApi } from "@slack/bolt";
import type { OutboundMessage, OutboundTarget, SendResult } from "@hermes/gateway";
import { messageBlocks, sectionBlocks } from "./message-blocks.js";
import { plainSlackText } from "./mrkdwn.js";
import { webApiFailure } from "./web-api-failure.js";

type WebClient = InstanceType<typeof webApi.WebClient>;

/** What a Web API failure is also shown to (a refused token is re-checked). */
export type OnWebApiError = (error: unknown) => void;

export function isSlackTs(value: string): boolean {
  return /^\d+\.\d+$/.test(value);
}

/** chat.postMessage; a reply to a message (a Slack ts) goes into its thread, and `onThread` learns the thread. */
export async function postSlackMessage(client: WebClient, target: OutboundTarget, message: OutboundMessage, onThread: (chatId: string, threadTs: string) => void, onError: OnWebApiError): Promise<SendResult> {
  const plain = message.format === "plain";
  const text = plain ? plainSlackText(message.text) : message.text;
  const threadTs = target.threadId ?? (target.replyToMessageId && isSlackTs(target.replyToMessageId) ? target.replyToMessageId : undefined);
  const blocks = messageBlocks(text, !plain, message.buttons);
  try {
    const result = await client.chat.postMessage({ channel: target.chatId, text, mrkdwn: !plain, ...(threadTs ? { thread_ts: threadTs } : {}), ...(blocks ? { blocks } : {}) });
    if (threadTs) onThread(target.chatId, threadTs);
    return typeof result.ts === "string" ? { ok: true, messageId: result.ts } : { ok: true };
  } catch (error) {
    onError(error);
    return webApiFailure(error);
  }
}

/**
 * chat.update of a message the bot posted. Slack keeps a message's blocks (its old buttons) unless the update names
 * new ones, so every edit names its blocks: the text in sections (mrkdwn, or plain_text shown unformatted, since
 * chat.update has no `mrkdwn` switch and the message may have been posted with either), then the buttons, if any.
 */
export async function updateSlackMessage(client: WebClient, target: OutboundTarget, messageId: string, message: OutboundMessage, onError: OnWebApiError): Promise<SendResult> {
  const plain = message.format === "plain";
  const text = plain ? plainSlackText(message.text) : message.text;
  const blocks = messageBlocks(text, !plain, message.buttons) ?? sectionBlocks(text, !plain);
  try {
    await client.chat.update({ channel: target.chatId, ts: messageId, text, blocks });
    return { ok: true, messageId };
  } catch (error) {
    onError(error);
    return webApiFailure(error);
  }
}
