import type { Message } from "@mariozechner/pi-ai";

/** Stands where an image was: the line before it (attachment-content.ts) still names the file and its path. */
export const IMAGE_PLACEHOLDER = "[The image above was shown in the turn it was sent; it is not kept in the conversation.]";

/**
 * The transcript as it is stored: a user message's images become a short line and its parts one text again, and a
 * tool result's images a short text part. An image
 * costs about as much as a page of text on every later request, and its base64 would sit in the store (and in every
 * compression summary request) for good; the model saw it when it answered, and its words about it stay.
 * Messages without images are returned as the same objects.
 */
export function withoutImageData(messages: readonly Message[]): Message[] {
  return messages.map((message) => {
    if (message.role === "toolResult" && message.content.some((part) => part.type === "image")) {
      // A tool's images (an MCP server's screenshot) likewise: the run that called it saw them.
      return { ...message, content: message.content.map((part) => (part.type === "image" ? { type: "text" as const, text: TOOL_IMAGE_PLACEHOLDER } : part)) };
    }
    if (message.role !== "user" || typeof message.content === "string" || !message.content.some((part) => part.type === "image")) return message;
    const text = message.content.map((part) => (part.type === "text" ? part.text : IMAGE_PLACEHOLDER)).join("\n");
    return { ...message, content: text };
  });
}

export const TOOL_IMAGE_PLACEHOLDER = "[An image the tool returned was shown in the turn it was called; it is not kept in the conversation.]";
