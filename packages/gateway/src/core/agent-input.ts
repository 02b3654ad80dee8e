import type { InboundMessage } from "./inbound.js";

/**
 * The text the agent sees for a message: in a shared session it is prefixed with the sender, and attachments are
 * listed (with their workspace path once downloaded) so the model can open them with its file tools.
 */
export function agentInputFor(message: InboundMessage, shared: boolean): string {
  const sender = message.user.name ?? message.user.id;
  const lines: string[] = [];
  if (message.replyTo?.text) lines.push(`(In reply to: "${message.replyTo.text.slice(0, 300)}")`);
  lines.push(message.text);
  for (const attachment of message.attachments) {
    const what = [attachment.kind, attachment.name, attachment.mimeType, attachment.sizeBytes !== undefined ? `${attachment.sizeBytes} bytes` : undefined]
      .filter(Boolean)
      .join(", ");
    lines.push(attachment.localPath ? `[Attachment: ${what} — saved at ${attachment.localPath}]` : `[Attachment: ${what}]`);
  }
  const text = lines.join("\n").trim();
  return shared ? `[${sender}] ${text}` : text;
}
