import { BUILTIN_TOOL_NAMES, DEFAULT_SAFE_TOOLS, DELEGATE_TASK_TOOL_NAME, MEMORY_TOOL_NAME, SKILL_TOOL_NAMES } from "@hermes/agent";
import { CRONJOB_TOOL } from "../cron/cronjob-tool.js";

export const SESSION_SEARCH_TOOL = "session_search";

/** Every tool name HERMES_TOOLS may list (DESIGN.md's built-in tool names). */
export const ALL_TOOL_NAMES: readonly string[] = [...BUILTIN_TOOL_NAMES, MEMORY_TOOL_NAME, ...SKILL_TOOL_NAMES, SESSION_SEARCH_TOOL, DELEGATE_TASK_TOOL_NAME, CRONJOB_TOOL];

/** The safe default: no file system or shell access; memory, skills and search of one's own past sessions. */
export const DEFAULT_TOOL_NAMES: readonly string[] = [...DEFAULT_SAFE_TOOLS, MEMORY_TOOL_NAME, ...SKILL_TOOL_NAMES, SESSION_SEARCH_TOOL, DELEGATE_TASK_TOOL_NAME, CRONJOB_TOOL];
