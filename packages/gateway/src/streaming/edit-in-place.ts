import type { OutboundMessage, OutboundTarget, PlatformAdapter, SendResult } from "../core/adapter.js";

/** An adapter that can edit the messages it sent. */
export type EditingAdapter = PlatformAdapter & Required<Pick<PlatformAdapter, "edit">>;

export function canEdit(adapter: PlatformAdapter): adapter is EditingAdapter {
  return typeof adapter.edit === "function";
}

/**
 * `adapter` with `send` turned into an edit of message `messageId`, so an edit goes through the same pacing, formatting,
 * plain-text fallback and retries as a send (pacedSend, sendChunk). An edit repeated after an ambiguous failure never
 * shows twice, hence "exactly-once".
 */
export function editingInPlace(adapter: EditingAdapter, messageId: string): PlatformAdapter {
  const editing: PlatformAdapter = {
    platform: adapter.platform,
    textLimit: adapter.textLimit,
    deliveryGuarantee: "exactly-once",
    start: () => Promise.resolve(),
    stop: () => Promise.resolve(),
    send: (target: OutboundTarget, message: OutboundMessage): Promise<SendResult> => adapter.edit(target, messageId, message),
  };
  const format = adapter.formatMarkdown;
  if (format) return { ...editing, formatMarkdown: (markdown: string) => format.call(adapter, markdown) };
  return editing;
}
