import { MEMORY_TOOL_NAME } from "../memory/memory-tool.js";
import type { AnyToolDefinition } from "../tools/types.js";
import { DELEGATE_TASK_TOOL_NAME } from "./types.js";

/**
 * Never handed down: a sub-agent delegating again would multiply cost without bound, and memory and skills are the
 * parent's to write (a sub-agent sees none of the conversation that would justify a change).
 */
export const WITHHELD_FROM_SUBAGENTS: ReadonlySet<string> = new Set([DELEGATE_TASK_TOOL_NAME, MEMORY_TOOL_NAME, "skill_manage"]);

export interface SubagentToolSet {
  tools: AnyToolDefinition[];
  /** Names the task asked for that it cannot have (withheld, disabled or unknown). */
  ignored: string[];
}

/** The parent's tools minus the withheld ones, narrowed to the task's own list when it gives one. */
export function subagentTools(parentTools: readonly AnyToolDefinition[], requested: readonly string[] | undefined): SubagentToolSet {
  const allowed = parentTools.filter((tool) => !WITHHELD_FROM_SUBAGENTS.has(tool.name));
  if (requested === undefined) return { tools: allowed, ignored: [] };
  const wanted = new Set(requested.map((name) => name.trim()).filter((name) => name !== ""));
  const names = new Set(allowed.map((tool) => tool.name));
  return {
    tools: allowed.filter((tool) => wanted.has(tool.name)),
    ignored: [...wanted].filter((name) => !names.has(name)),
  };
}
