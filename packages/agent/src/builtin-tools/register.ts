import type { ToolRegistry } from "../tools/registry.js";
import type { AnyToolDefinition } from "../tools/types.js";
import { listDirectoryTool } from "./list-directory.js";
import { patchTool } from "./patch.js";
import { readFileTool } from "./read-file.js";
import { searchFilesTool } from "./search-files.js";
import { terminalTool } from "./terminal.js";
import { thinkTool } from "./think.js";
import { webFetchTool } from "./web-fetch.js";
import { webSearchTool, type SearchBackend } from "./web-search.js";
import { writeFileTool } from "./write-file.js";
import { createWorkspace, type Workspace } from "./workspace.js";

/** The built-in tools of seed 000 §12 that live in this package (memory and skill tools come with their subsystems). */
export const BUILTIN_TOOL_NAMES = [
  "read_file",
  "write_file",
  "patch",
  "search_files",
  "list_directory",
  "terminal",
  "web_search",
  "web_fetch",
  "think",
] as const;
export type BuiltinToolName = (typeof BUILTIN_TOOL_NAMES)[number];

/** Enabled when nothing is configured: no file system or shell access. web_search still needs a backend to appear. */
export const DEFAULT_SAFE_TOOLS: readonly BuiltinToolName[] = ["think", "web_search", "web_fetch"];

const NEEDS_WORKSPACE: ReadonlySet<string> = new Set(["read_file", "write_file", "patch", "search_files", "list_directory", "terminal"]);

export interface BuiltinToolsConfig {
  /** Tool names to enable; defaults to DEFAULT_SAFE_TOOLS. */
  enable?: readonly string[];
  /** Folder the file and terminal tools are confined to; required when any of them is enabled. */
  workspaceRoot?: string;
  /** Extra folders file tools may read (not write). */
  readOnlyRoots?: string[];
  /** A read-only folder of per-session folders (saved oversized tool output); a run reads only its own session's. */
  sessionScopedRoot?: string;
  /** Let web_fetch reach loopback and private networks (off by default: server-side request forgery). */
  allowPrivateNetwork?: boolean;
  searchBackend?: SearchBackend;
  terminalTimeoutMs?: number;
}

export function isBuiltinToolName(name: string): name is BuiltinToolName {
  return (BUILTIN_TOOL_NAMES as readonly string[]).includes(name);
}

export async function registerBuiltinTools(
  registry: ToolRegistry,
  config: BuiltinToolsConfig = {},
): Promise<{ ok: true; registered: string[] } | { ok: false; error: string }> {
  const enable = [...new Set(config.enable ?? DEFAULT_SAFE_TOOLS)];
  const unknown = enable.filter((name) => !isBuiltinToolName(name));
  if (unknown.length > 0) {
    return { ok: false, error: `unknown built-in tool(s): ${unknown.join(", ")}. Known: ${BUILTIN_TOOL_NAMES.join(", ")}` };
  }
  let workspace: Workspace | undefined;
  if (enable.some((name) => NEEDS_WORKSPACE.has(name))) {
    if (!config.workspaceRoot) return { ok: false, error: "file and terminal tools need a workspace root" };
    workspace = await createWorkspace(config.workspaceRoot, {
      readOnlyRoots: config.readOnlyRoots,
      sessionScopedRoot: config.sessionScopedRoot,
    });
  }
  const registered: string[] = [];
  for (const name of enable as BuiltinToolName[]) {
    const tool = build(name, workspace, config);
    if (registry.has(tool.name)) continue;
    registry.register(tool);
    registered.push(tool.name);
  }
  return { ok: true, registered };
}

function build(name: BuiltinToolName, ws: Workspace | undefined, config: BuiltinToolsConfig): AnyToolDefinition {
  const workspace = (): Workspace => {
    if (!ws) throw new Error(`${name} needs a workspace`);
    return ws;
  };
  switch (name) {
    case "read_file":
      return readFileTool(workspace());
    case "write_file":
      return writeFileTool(workspace());
    case "patch":
      return patchTool(workspace());
    case "search_files":
      return searchFilesTool(workspace());
    case "list_directory":
      return listDirectoryTool(workspace());
    case "terminal":
      return terminalTool({ workspace: workspace(), defaultTimeoutMs: config.terminalTimeoutMs });
    case "web_fetch":
      return webFetchTool({ allowPrivateNetwork: config.allowPrivateNetwork });
    case "web_search":
      return webSearchTool({ backend: config.searchBackend });
    case "think":
      return thinkTool();
  }
}
