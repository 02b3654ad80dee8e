import type { AssistantMessage, ImageContent, Message, TextContent } from "@mariozechner/pi-ai";

/** Providers bill an image by its pixels, not by the size of its base64 text; this is a typical figure. */
export const IMAGE_TOKEN_ESTIMATE = 1_200;
/** Role markers and separators each message costs on the wire. */
const MESSAGE_OVERHEAD_TOKENS = 4;

/**
 * Rough token count of a text: about four characters per token for Latin scripts, but close to one token per
 * character for CJK and other wide scripts, where chars/4 would hide three quarters of the real size.
 */
export function estimateTextTokens(text: string): number {
  let narrow = 0;
  let wide = 0;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 0x0800) narrow += 1;
    // A surrogate pair is one character; count it once, on its high half.
    else if (code < 0xdc00 || code > 0xdfff) wide += 1;
  }
  return Math.ceil(narrow / 4) + wide;
}

function blocksTokens(blocks: readonly (TextContent | ImageContent)[]): number {
  let total = 0;
  for (const block of blocks) total += block.type === "text" ? estimateTextTokens(block.text) : IMAGE_TOKEN_ESTIMATE;
  return total;
}

export function estimateMessageTokens(message: Message): number {
  if (message.role === "user") {
    const body = typeof message.content === "string" ? estimateTextTokens(message.content) : blocksTokens(message.content);
    return body + MESSAGE_OVERHEAD_TOKENS;
  }
  if (message.role === "toolResult") return blocksTokens(message.content) + estimateTextTokens(message.toolName) + MESSAGE_OVERHEAD_TOKENS;
  let total = MESSAGE_OVERHEAD_TOKENS;
  for (const block of message.content) {
    if (block.type === "text") total += estimateTextTokens(block.text);
    else if (block.type === "thinking") total += estimateTextTokens(block.thinking);
    else total += estimateTextTokens(block.name) + estimateTextTokens(JSON.stringify(block.arguments ?? {}));
  }
  return total;
}

export function estimateMessagesTokens(messages: readonly Message[]): number {
  let total = 0;
  for (const message of messages) total += estimateMessageTokens(message);
  return total;
}

/** Tokens of the prompt that produced this reply, as the provider counted them (cached parts included). */
export function promptTokensOf(message: AssistantMessage): number {
  return message.usage.input + message.usage.cacheRead + message.usage.cacheWrite;
}

/**
 * Size of the context the next call would send. The provider's own count from the latest reply is exact for
 * everything up to that reply, so it is used when present and only what came after is estimated. A reply from
 * before `usageValidAfter` (a compression time) counted a prompt that no longer exists and is ignored.
 */
export function estimateContextTokens(
  messages: readonly Message[],
  systemPrompt?: string,
  options: { usageValidAfter?: number } = {},
): number {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i];
    if (message?.role !== "assistant") continue;
    const stale = options.usageValidAfter !== undefined && message.timestamp <= options.usageValidAfter;
    if (stale) break;
    // A failed or usage-less reply says nothing; an earlier one still does.
    if (promptTokensOf(message) <= 0) continue;
    return promptTokensOf(message) + message.usage.output + estimateMessagesTokens(messages.slice(i + 1));
  }
  return (systemPrompt ? estimateTextTokens(systemPrompt) : 0) + estimateMessagesTokens(messages);
}
