import type { Message, ToolCall } from "@mariozechner/pi-ai";
import { readCompressionNote } from "./compression-note.js";
import { describeToolResult, resultText } from "./prune-tool-results.js";
import { estimateTextTokens } from "./token-estimate.js";

export const TOOL_OUTPUT_TAG = "tool-output";

const USER_MAX_CHARS = 6_000;
const ASSISTANT_MAX_CHARS = 4_000;
const ARGUMENTS_MAX_CHARS = 400;
/** Raw tool output shown to the summariser: its start and end carry the command echo, errors and totals. */
const EXCERPT_HEAD_CHARS = 600;
const EXCERPT_TAIL_CHARS = 300;

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)} …[${(text.length - max).toLocaleString("en-US")} more chars]` : text;
}

function excerpt(text: string): string {
  if (text.length <= EXCERPT_HEAD_CHARS + EXCERPT_TAIL_CHARS) return text;
  const omitted = text.length - EXCERPT_HEAD_CHARS - EXCERPT_TAIL_CHARS;
  return `${text.slice(0, EXCERPT_HEAD_CHARS)}\n…[${omitted.toLocaleString("en-US")} chars omitted]…\n${text.slice(-EXCERPT_TAIL_CHARS)}`;
}

/** Tool output may contain our own closing tag; defusing it keeps the fence the only way out of untrusted text. */
export function fenceUntrusted(text: string): string {
  const defused = text.replace(new RegExp(`<(/?)${TOOL_OUTPUT_TAG}`, "gi"), "<$1\u200b" + TOOL_OUTPUT_TAG);
  return `<${TOOL_OUTPUT_TAG}>\n${defused}\n</${TOOL_OUTPUT_TAG}>`;
}

function userText(message: Extract<Message, { role: "user" }>): string {
  if (typeof message.content === "string") return message.content;
  return message.content.map((block) => (block.type === "text" ? block.text : `[image ${block.mimeType}]`)).join("\n");
}

function renderMessage(message: Message, calls: ReadonlyMap<string, ToolCall>): string | undefined {
  if (message.role === "user") {
    // Earlier notes are handed over separately as the summary to update.
    if (readCompressionNote(message)) return undefined;
    return `[user]\n${clip(userText(message), USER_MAX_CHARS)}`;
  }
  if (message.role === "assistant") {
    if (message.stopReason === "error" || message.stopReason === "aborted") return undefined;
    const parts: string[] = [];
    for (const block of message.content) {
      if (block.type === "text" && block.text.trim()) parts.push(clip(block.text.trim(), ASSISTANT_MAX_CHARS));
      if (block.type === "toolCall") parts.push(`→ calls ${block.name} ${clip(JSON.stringify(block.arguments ?? {}), ARGUMENTS_MAX_CHARS)}`);
    }
    return parts.length > 0 ? `[assistant]\n${parts.join("\n")}` : undefined;
  }
  const summary = describeToolResult(message, calls.get(message.toolCallId));
  return `[tool result] ${summary}\n${fenceUntrusted(excerpt(resultText(message)))}`;
}

/**
 * The middle of the conversation as plain text for the summariser. When it is longer than the budget the oldest
 * entries go first: the prior summary already covers what came before them.
 */
export function renderTranscript(middle: readonly Message[], calls: ReadonlyMap<string, ToolCall>, tokenBudget: number): string {
  const entries = middle.map((message) => renderMessage(message, calls)).filter((entry): entry is string => entry !== undefined);
  let used = 0;
  let first = entries.length;
  while (first > 0) {
    const cost = estimateTextTokens(entries[first - 1] as string) + 2;
    if (used + cost > tokenBudget && first < entries.length) break;
    used += cost;
    first -= 1;
  }
  const kept = entries.slice(first);
  if (first > 0) kept.unshift(`[${first} earlier entries omitted to fit the summariser's context]`);
  return kept.join("\n\n");
}
