import type { Message } from "@mariozechner/pi-ai";

/** Rough cost of an image in a prompt; counting its base64 length would overstate it by orders of magnitude. */
const IMAGE_TOKEN_ESTIMATE = 1_000;
const CHARS_PER_TOKEN = 4;

/**
 * The words a person might later search for: what the user wrote, what the assistant said and what tools returned.
 * Thinking and tool-call arguments are left out; they are working notes, not the conversation.
 */
export function searchableText(message: Message): string {
  switch (message.role) {
    case "user":
      if (typeof message.content === "string") return message.content;
      return joinTexts(message.content.map((part) => (part.type === "text" ? part.text : "")));
    case "assistant":
      return joinTexts(message.content.map((part) => (part.type === "text" ? part.text : "")));
    case "toolResult":
      return joinTexts(message.content.map((part) => (part.type === "text" ? part.text : "")));
  }
}

/** Token count of a message: the provider's own figure for assistant output when it reported one, else chars/4. */
export function estimateTokens(message: Message): number {
  if (message.role === "assistant" && message.usage.output > 0) return message.usage.output;
  let chars = 0;
  let images = 0;
  const parts = typeof message.content === "string" ? [{ type: "text" as const, text: message.content }] : message.content;
  for (const part of parts) {
    switch (part.type) {
      case "text":
        chars += part.text.length;
        break;
      case "thinking":
        chars += part.thinking.length;
        break;
      case "toolCall":
        chars += part.name.length + JSON.stringify(part.arguments ?? {}).length;
        break;
      case "image":
        images += 1;
        break;
    }
  }
  return Math.ceil(chars / CHARS_PER_TOKEN) + images * IMAGE_TOKEN_ESTIMATE;
}

const MESSAGE_ROLES = new Set(["user", "assistant", "toolResult"]);

/** Reads a transcript entry back. The store wrote it, so anything else means a corrupted file: that is a bug, not input. */
export function parseStoredMessage(json: string, where: string): Message {
  const value: unknown = JSON.parse(json);
  if (typeof value !== "object" || value === null || !("role" in value) || !MESSAGE_ROLES.has(String(value.role))) {
    throw new Error(`stored message ${where} is not a pi-ai message`);
  }
  return value as Message;
}

function joinTexts(texts: readonly string[]): string {
  return texts.filter((text) => text.length > 0).join("\n");
}
