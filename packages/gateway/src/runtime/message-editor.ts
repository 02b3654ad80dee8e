import type { Logger } from "@hermes/agent";
import type { OutboundMessage, OutboundTarget, PlatformAdapter } from "../core/adapter.js";
import type { SendPacer } from "../outbound/pacer-types.js";
import { pacedSend, sendChunk } from "../outbound/send-chunk.js";
import { canEdit, editingInPlace } from "../streaming/edit-in-place.js";

const EDIT_RETRY = { maxAttempts: 3, sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)), random: Math.random };

/**
 * Edits a message the bot sent (a decided approval prompt) with the same pacing, formatting and plain-text fallback as
 * a send. False when the platform cannot edit or the edit failed (logged), so the caller answers with a message instead.
 */
export function messageEditor(adapters: ReadonlyMap<string, PlatformAdapter>, pacer: SendPacer, logger: Logger) {
  return async (platform: string, target: OutboundTarget, messageId: string, message: OutboundMessage): Promise<boolean> => {
    const adapter = adapters.get(platform);
    if (!adapter || !canEdit(adapter)) return false;
    const editing = editingInPlace(adapter, messageId);
    const result =
      message.format === "markdown"
        ? await sendChunk(editing, target, message.text, EDIT_RETRY, { pacer, idempotencyKey: `edit:${messageId}`, ...(message.buttons && { buttons: message.buttons }) }, logger)
        : await pacedSend(editing, target, message, { pacer });
    if (!result.ok) logger.warn("could not edit a message", { platform, chatId: target.chatId, messageId, error: result.error });
    return result.ok;
  };
}
