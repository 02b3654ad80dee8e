import type { Message } from "@mariozechner/pi-ai";
import { NO_VISION_MARKER } from "./attachment-content.js";

/**
 * The line added to the reply when images were sent to a model that cannot see them, once per conversation: the
 * transcript remembers that the person was told (the stored message carries the marker), so every worker knows.
 * A model is not trusted to say it on its own; it may pretend to have seen the picture.
 */
export function noVisionNotice(unseenImages: readonly string[], history: readonly Message[]): string | undefined {
  if (unseenImages.length === 0) return undefined;
  if (history.some((message) => message.role === "user" && textOf(message).includes(NO_VISION_MARKER))) return undefined;
  const names = unseenImages.map((name) => `"${name}"`).join(", ");
  return `(The model I run on cannot see images, so I could not look at ${names}. It only knows that ${unseenImages.length === 1 ? "an image was" : "images were"} sent; describe what matters in words. I won't repeat this note in this conversation.)`;
}

function textOf(message: Extract<Message, { role: "user" }>): string {
  if (typeof message.content === "string") return message.content;
  return message.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
}
