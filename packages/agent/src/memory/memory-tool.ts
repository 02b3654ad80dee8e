import { Type, type Static } from "@sinclair/typebox";
import { defineTool, type AnyToolDefinition, type ToolResult } from "../tools/types.js";
import { cleanEntry } from "./memory-entries.js";
import type { MemoryWrite } from "./memory-provider.js";
import type { MemoryEditResult, MemoryFileState, MemoryStore, MemoryTarget } from "./memory-store.js";

export const MEMORY_TOOL_NAME = "memory";

const parameters = Type.Object({
  action: Type.Union([Type.Literal("read"), Type.Literal("add"), Type.Literal("replace"), Type.Literal("remove")], {
    description: "read: show the file; add: save a new entry; replace: rewrite the entry containing old_text; remove: delete it.",
  }),
  target: Type.Union([Type.Literal("memory"), Type.Literal("user")], {
    description: "memory: your notes about the environment, projects and conventions (MEMORY.md); user: facts about the user and their preferences (USER.md).",
  }),
  content: Type.Optional(Type.String({ description: "The entry text, for add and replace. One fact per entry, short and self-contained." })),
  old_text: Type.Optional(
    Type.String({ description: "For replace and remove: an exact piece of the one entry to change, long enough to be unique." }),
  ),
});

export type MemoryToolArgs = Static<typeof parameters>;

export const MEMORY_TOOL_GUIDANCE =
  "You have persistent memory that is shown to you at the start of every session. Save durable facts that stop " +
  "the user having to repeat themselves: stable preferences (language, tone, formats), facts about their " +
  "environment (OS, tools, project layout, where things are configured) and conventions or corrections they " +
  "gave you. Use target \"user\" for who the user is and what they prefer, \"memory\" for everything else. " +
  "Do not save task progress, temporary state, one-off results, guesses or anything you could look up again, " +
  "and never save secrets (passwords, API keys, tokens). To recall past conversations use session_search, not " +
  "memory. Keep entries short; when a file is near its limit, merge entries with replace or remove stale ones. " +
  "Changes are kept at once but appear in the memory block of your prompt only from the next session.";

export interface MemoryToolOptions {
  store: MemoryStore;
  /** Called after a write changed a file (not for reads, duplicates or refusals). */
  onWrite?: (write: MemoryWrite) => void;
}

/** The `memory` tool over MEMORY.md / USER.md; results always show the live file, not the session snapshot. */
export function memoryTool(options: MemoryToolOptions): AnyToolDefinition {
  return defineTool({
    name: MEMORY_TOOL_NAME,
    description:
      "Read or edit your persistent memory: MEMORY.md (target memory) and USER.md (target user), lists of short " +
      "entries each starting with §. add needs content; replace needs old_text and content; remove needs old_text.",
    guidance: MEMORY_TOOL_GUIDANCE,
    parameters,
    concurrency: "never-parallel",
    handler: async (args) => runMemoryAction(options, args),
  });
}

async function runMemoryAction(options: MemoryToolOptions, args: MemoryToolArgs): Promise<ToolResult> {
  const { store } = options;
  const missing = missingArguments(args);
  if (missing !== undefined) return { content: missing, isError: true, details: { action: args.action, target: args.target } };

  if (args.action === "read") {
    const read = await store.read(args.target);
    if (!read.ok) return { content: read.error, isError: true, details: { action: "read", target: args.target, code: read.code } };
    const body = read.state.text.trim() === "" ? "(empty)" : read.state.text.trimEnd();
    return { content: `${usageLine(read.state)}\n${body}`, details: stateDetails("read", read.state, false) };
  }

  const content = args.content ?? "";
  const oldText = args.old_text ?? "";
  const result = await edit(store, args.action, args.target, content, oldText);
  if (!result.ok) return { content: result.error, isError: true, details: { action: args.action, target: args.target, code: result.code } };
  if (result.changed) options.onWrite?.({ key: args.target, value: args.action === "remove" ? "" : cleanEntry(content) });
  const listing = result.state.entries.length === 0 ? "(empty)" : result.state.text.trimEnd();
  return { content: `${result.note}\n${usageLine(result.state)}\n${listing}`, details: stateDetails(args.action, result.state, result.changed) };
}

function edit(store: MemoryStore, action: "add" | "replace" | "remove", target: MemoryTarget, content: string, oldText: string): Promise<MemoryEditResult> {
  if (action === "add") return store.add(target, content);
  if (action === "replace") return store.replace(target, oldText, content);
  return store.remove(target, oldText);
}

function missingArguments(args: MemoryToolArgs): string | undefined {
  const has = (value: string | undefined): boolean => value !== undefined && value.trim() !== "";
  switch (args.action) {
    case "read":
      return undefined;
    case "add":
      return has(args.content) ? undefined : 'action "add" needs content: the entry to save.';
    case "replace":
      if (!has(args.old_text) && !has(args.content)) return 'action "replace" needs old_text (part of the entry to change) and content (its new text).';
      if (!has(args.old_text)) return 'action "replace" needs old_text: an exact piece of the entry to change.';
      return has(args.content) ? undefined : 'action "replace" needs content: the new text of the entry (use remove to delete it).';
    case "remove":
      return has(args.old_text) ? undefined : 'action "remove" needs old_text: an exact piece of the entry to delete.';
  }
}

function usageLine(state: MemoryFileState): string {
  const count = state.entries.length === 1 ? "1 entry" : `${state.entries.length} entries`;
  return `${state.fileName}: ${count}, ${state.chars.toLocaleString("en-US")}/${state.limit.toLocaleString("en-US")} characters.`;
}

function stateDetails(action: string, state: MemoryFileState, changed: boolean): Record<string, unknown> {
  return { action, target: state.target, changed, entries: state.entries.length, chars: state.chars, limit: state.limit };
}
