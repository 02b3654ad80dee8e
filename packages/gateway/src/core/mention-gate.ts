import type { InboundMessage } from "./inbound.js";

export type MentionMode = "mention" | "all";

/**
 * In groups and channels the bot answers only when addressed: mentioned, replied to, or given a command — unless the
 * chat's setting says to answer everything. Direct messages are always addressed.
 */
export function isAddressed(message: InboundMessage, options: { mode: MentionMode; isCommand: boolean }): boolean {
  if (message.chat.type === "dm") return true;
  if (options.mode === "all") return true;
  return message.mentionedBot || message.replyTo?.fromBot === true || options.isCommand;
}
