import type { Message, ToolCall, ToolResultMessage } from "@mariozechner/pi-ai";

/** Results this short already cost about as much as their one-line description. */
export const DEFAULT_PRUNE_MIN_CHARS = 400;
const MAX_ARGUMENT_CHARS = 80;

export function resultText(result: ToolResultMessage): string {
  return result.content.map((block) => (block.type === "text" ? block.text : `[image ${block.mimeType}]`)).join("\n");
}

export function toolCallsById(messages: readonly Message[]): Map<string, ToolCall> {
  const calls = new Map<string, ToolCall>();
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const block of message.content) if (block.type === "toolCall") calls.set(block.id, block);
  }
  return calls;
}

/** Whether a result costs clearly more than its one-line description (images always do). */
export function worthPruning(result: ToolResultMessage, minChars: number): boolean {
  return result.content.some((block) => block.type === "image") || resultText(result).length > minChars;
}

function clipped(text: string): string {
  return text.length > MAX_ARGUMENT_CHARS ? `${text.slice(0, MAX_ARGUMENT_CHARS - 1)}…` : text;
}

function argument(call: ToolCall | undefined, name: string): string | undefined {
  const value: unknown = call?.arguments?.[name];
  if (typeof value !== "string" && typeof value !== "number") return undefined;
  return clipped(String(value).replace(/\s+/g, " ").trim());
}

function compactArguments(call: ToolCall | undefined): string | undefined {
  if (!call?.arguments || Object.keys(call.arguments).length === 0) return undefined;
  return clipped(JSON.stringify(call.arguments).replace(/\s+/g, " "));
}

function count(n: number): string {
  return n.toLocaleString("en-US");
}

function lineCount(text: string): number {
  if (text.length === 0) return 0;
  return text.split("\n").length;
}

/** How a terminal run ended, read from the status lines the terminal tool appends. */
function terminalOutcome(text: string, isError: boolean): string {
  const exit = /exit code: (-?\d+)\s*$/.exec(text);
  if (exit) return `exit ${exit[1]}`;
  if (/timed out after/.test(text)) return "timed out";
  const signal = /killed by signal (\S+)\s*$/.exec(text);
  if (signal) return `killed by ${signal[1]}`;
  return isError ? "failed" : "exit ?";
}

/**
 * One line that says what a tool call did, with no model call (seed 003's zero-cost pruning): enough for the model to
 * know the call happened and what came of it, so it can re-run it if the detail matters again.
 */
export function describeToolResult(result: ToolResultMessage, call?: ToolCall): string {
  const text = result.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
  const images = result.content.filter((block) => block.type === "image").length;
  const chars = `${count(text.length)} chars${images > 0 ? `, ${images} image${images === 1 ? "" : "s"}` : ""}`;
  const failed = result.isError ? " — failed" : "";
  const path = argument(call, "path");
  switch (result.toolName) {
    case "terminal":
      return `[terminal] ran "${argument(call, "command") ?? "?"}" → ${terminalOutcome(text, result.isError)}, ${count(lineCount(text))} lines`;
    case "read_file": {
      const offset = argument(call, "offset");
      return `[read_file] read ${path ?? "?"}${offset ? ` from line ${offset}` : ""} (${chars})${failed}`;
    }
    case "write_file": {
      const content: unknown = call?.arguments?.content;
      const lines = typeof content === "string" ? `${count(lineCount(content))} lines` : chars;
      return `[write_file] wrote ${path ?? "?"} (${lines})${failed}`;
    }
    case "patch":
      return `[patch] edited ${path ?? "?"} (${chars} of output)${failed}`;
    case "search_files":
      return `[search_files] searched "${argument(call, "pattern") ?? "?"}" in ${path ?? "."} → ${count(lineCount(text))} lines${failed}`;
    case "list_directory":
      return `[list_directory] listed ${path ?? "."} → ${count(lineCount(text))} lines${failed}`;
    case "web_fetch":
      return `[web_fetch] fetched ${argument(call, "url") ?? "?"} (${chars})${failed}`;
    case "web_search":
      return `[web_search] searched "${argument(call, "query") ?? "?"}" (${chars})${failed}`;
    default: {
      // Any tool's arguments, so the model can call it again for the output.
      const args = compactArguments(call);
      return `[${result.toolName}]${args ? ` ${args} →` : ""} ${chars}${failed}`;
    }
  }
}

/** Tools that only look things up: calling one again is how the model gets the output back. */
const LOOKUP_TOOLS: ReadonlySet<string> = new Set(["read_file", "list_directory", "search_files", "web_fetch", "web_search", "session_search"]);

/** Tells the model the short line is all that is left of a lookup's output, and how to get the output back. */
export const PRUNED_OUTPUT_NOTE = "(output cleared from the context; call the tool again to see it)";
/** A command, an edit or a memory write may not be safe to run twice only to see its output again. */
export const PRUNED_ACTION_NOTE = "(output cleared from the context; the call may have changed something, so repeat it only if that is safe)";

export function prunedOutputNote(toolName: string): string {
  return LOOKUP_TOOLS.has(toolName) ? PRUNED_OUTPUT_NOTE : PRUNED_ACTION_NOTE;
}

/** The stand-in for a result whose output is no longer sent: same call id, tool and error flag, so it still answers its call. */
export function prunedResult(result: ToolResultMessage, description: string): ToolResultMessage {
  return { ...result, content: [{ type: "text", text: `${description} ${prunedOutputNote(result.toolName)}` }] };
}

/**
 * Replaces long tool results in `messages[0, end)` by their one-line description. Call ids, tool names and error flags
 * stay, so every call keeps exactly one answer and the protocol stays valid.
 */
export function pruneToolResults(
  messages: readonly Message[],
  options: { end?: number; minChars?: number; calls?: Map<string, ToolCall> } = {},
): { messages: Message[]; pruned: number } {
  const end = Math.min(options.end ?? messages.length, messages.length);
  const minChars = options.minChars ?? DEFAULT_PRUNE_MIN_CHARS;
  const calls = options.calls ?? toolCallsById(messages);
  let pruned = 0;
  const out = messages.map((message, index): Message => {
    if (index >= end || message.role !== "toolResult" || !worthPruning(message, minChars)) return message;
    pruned += 1;
    return prunedResult(message, describeToolResult(message, calls.get(message.toolCallId)));
  });
  return { messages: out, pruned };
}
