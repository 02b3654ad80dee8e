import type { InboundMessage } from "./inbound.js";

/** Builds an InboundMessage for tests with sensible defaults. */
export function inbound(overrides: Partial<InboundMessage> & { chat?: Partial<InboundMessage["chat"]>; user?: Partial<InboundMessage["user"]> } = {}): InboundMessage {
  const { chat, user, ...rest } = overrides;
  return {
    platform: "telegram",
    chat: { id: "100", type: "dm", ...chat },
    user: { id: "7", name: "Ada", ...user },
    messageId: "m1",
    text: "hello",
    attachments: [],
    mentionedBot: false,
    timestamp: 1_700_000_000_000,
    ...rest,
  };
}
