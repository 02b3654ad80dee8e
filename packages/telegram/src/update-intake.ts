import type { Logger } from "@hermes/agent";
import type { InboundMessage } from "@hermes/gateway";
import type { Update } from "grammy/types";
import { describeApiFailure } from "./api-errors.js";
import { describeFile, fetchAttachments } from "./attachments.js";
import type { BotIdentity } from "./bot-identity.js";
import type { DownloadOutcome } from "./download-file.js";
import { normalizeUpdate } from "./normalize-update.js";

export interface UpdateIntakeOptions {
  bot: BotIdentity;
  gatewayName?: string;
  receive: (message: InboundMessage) => Promise<void>;
  /** The gateway's say on fetching a message's files (AdapterContext.mayFetchFiles): a stranger's are only listed. */
  mayFetchFiles?: (message: InboundMessage) => Promise<boolean>;
  attachmentsDir: string;
  maxAttachmentBytes: number;
  download: (fileId: string, destination: string, signal: AbortSignal) => Promise<DownloadOutcome>;
  /** answerCallbackQuery for a button press. */
  answerCallback: (callbackQueryId: string) => Promise<void>;
  logger: Logger;
  now?: () => number;
}

export type UpdateHandler = (update: Update, signal: AbortSignal) => Promise<void>;

/**
 * From a raw update to a persisted gateway message: normalize, download files, hand over. Resolves once the gateway
 * persisted the message (or the update was deliberately ignored); rejects when it could not be handed over, so the
 * caller does not confirm it to Telegram.
 */
export function createUpdateHandler(options: UpdateIntakeOptions): UpdateHandler {
  return async (update, signal) => {
    let normalized: ReturnType<typeof normalizeUpdate>;
    try {
      normalized = normalizeUpdate(update, { bot: options.bot, gatewayName: options.gatewayName, ...(options.now ? { now: options.now } : {}) });
    } catch (error) {
      // A malformed update would otherwise block every update behind it forever.
      options.logger.error("could not read a Telegram update; skipped", { updateId: update.update_id, error: error instanceof Error ? error.message : String(error) });
      return;
    }
    if (normalized.kind === "ignored") {
      options.logger.debug("Telegram update ignored", { updateId: update.update_id, reason: normalized.reason });
      return;
    }
    const { message, files, callbackQueryId } = normalized;
    if (callbackQueryId !== undefined) answerPress(options, callbackQueryId);
    if (files.length > 0) {
      if (mayDownload(message) && (await (options.mayFetchFiles?.(message) ?? true))) {
        const fetched = await fetchAttachments(files, {
          chatId: message.chat.id,
          messageId: message.replyToId ?? message.messageId,
          directory: options.attachmentsDir,
          maxBytes: options.maxAttachmentBytes,
          download: (fileId, destination) => options.download(fileId, destination, signal),
        });
        message.attachments = fetched.attachments;
        message.text = [message.text, ...fetched.notes].filter((line) => line !== "").join("\n");
      } else {
        message.attachments = files.map(describeFile);
      }
    }
    if (signal.aborted) throw new Error("stopping: the update was not handed over");
    await options.receive(message);
  };
}

/**
 * Answered at once and not awaited: the app shows progress on the button until then, and the press is the gateway's
 * to handle whether or not the answer gets through.
 */
function answerPress(options: UpdateIntakeOptions, callbackQueryId: string): void {
  options.answerCallback(callbackQueryId).catch((error: unknown) => {
    options.logger.warn("could not answer a Telegram button press", { callbackQueryId, error: describeApiFailure(error).message });
  });
}

/**
 * Files are fetched in direct chats and when the bot is addressed in a group; the gateway ignores the rest unless a
 * chat asked for every message, and downloading every file posted in a busy group would only fill the disk.
 */
function mayDownload(message: InboundMessage): boolean {
  return message.chat.type === "dm" || message.mentionedBot || message.replyTo?.fromBot === true || message.text.startsWith("/");
}
