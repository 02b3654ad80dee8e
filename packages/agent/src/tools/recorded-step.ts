import type { AssistantMessage } from "@mariozechner/pi-ai";

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function isContentBlock(block: unknown): boolean {
  if (!isRecord(block)) return false;
  switch (block.type) {
    case "text":
      return typeof block.text === "string";
    case "thinking":
      return typeof block.thinking === "string";
    case "toolCall":
      return typeof block.id === "string" && typeof block.name === "string" && isRecord(block.arguments);
    default:
      return false;
  }
}

/**
 * A recorded model reply read back from storage, or undefined when it is not one: stored data may be damaged or from
 * another version, and a bad record must only cost a model call, never the run.
 */
export function recordedAssistantMessage(value: unknown): AssistantMessage | undefined {
  if (!isRecord(value) || value.role !== "assistant" || typeof value.stopReason !== "string") return undefined;
  if (!Array.isArray(value.content) || !value.content.every(isContentBlock)) return undefined;
  if (!isRecord(value.usage)) return undefined;
  return value as unknown as AssistantMessage;
}
