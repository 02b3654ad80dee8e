import { promises as fs } from "node:fs";
import { Type } from "@sinclair/typebox";
import { defineTool, type AnyToolDefinition, type ToolResult } from "../tools/types.js";
import { errorCode, fsFailure, toolError } from "./fs-errors.js";
import { formatBytes } from "./text-file.js";
import { DEFAULT_SKIPPED_DIRECTORIES, walkTree, type WalkEntry } from "./walk.js";
import { resolveInWorkspace, type Workspace } from "./workspace.js";

const DEFAULT_MAX_ENTRIES = 200;
const MAX_ENTRIES = 2000;

const ListDirectoryParameters = Type.Object({
  path: Type.Optional(Type.String({ description: "Folder to list, relative to the workspace root (default: root)." })),
  recursive: Type.Optional(Type.Boolean({ description: "Include the contents of subfolders (default false)." })),
  max_entries: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_ENTRIES, description: `Most entries to list (default ${DEFAULT_MAX_ENTRIES}).` }),
  ),
});

export function listDirectoryTool(ws: Workspace): AnyToolDefinition {
  return defineTool({
    name: "list_directory",
    description:
      "List a folder in the workspace: entries sorted by name, folders ending in /, files with their size. " +
      "Set recursive to include subfolders (.git and node_modules are not expanded).",
    parameters: ListDirectoryParameters,
    concurrency: "parallel-safe",
    guidance:
      "Use list_directory to get your bearings in an unfamiliar folder before reading files. Start without " +
      "recursive and descend into the folders that matter; a recursive listing of a large tree is cut off at " +
      "max_entries. Symbolic links are shown as `name -> (link)` and are not followed. To find files by name " +
      "anywhere below a folder, search_files with target \"files\" is usually quicker.",
    handler: async (args, context): Promise<ToolResult> => {
      const resolved = await resolveInWorkspace(ws, args.path ?? ".", "read", { sessionId: context.sessionId });
      if (!resolved.ok) return toolError(resolved.error);
      const { path: folder, display } = resolved;

      try {
        const stats = await fs.stat(folder);
        if (!stats.isDirectory()) return toolError(`${display} is a file, not a folder; use read_file to read it.`);
      } catch (error) {
        if (errorCode(error) === "ENOENT") return toolError(`Folder not found: ${display}`);
        return fsFailure(error, display);
      }

      const recursive = args.recursive === true;
      const maxEntries = Math.min(Math.max(1, Math.floor(args.max_entries ?? DEFAULT_MAX_ENTRIES)), MAX_ENTRIES);
      const lines: string[] = [];
      let more = false;
      try {
        const walk = walkTree(folder, { recursive, skipDirectoryNames: DEFAULT_SKIPPED_DIRECTORIES, signal: context.signal });
        for await (const entry of walk) {
          if (lines.length >= maxEntries) {
            more = true;
            break;
          }
          lines.push(await describeEntry(entry));
        }
      } catch (error) {
        return fsFailure(error, display);
      }
      if (context.signal.aborted) return toolError(`Listing of ${display} was cancelled.`);

      const heading = `Folder: ${display}${display === "." ? " (workspace root)" : ""}`;
      if (lines.length === 0) return { content: `${heading}\n(empty)`, details: { path: display, entries: 0 } };
      const note = more
        ? [
            `[More entries not shown: stopped after ${maxEntries}. List a subfolder` +
              `${recursive ? " or drop recursive" : ""}, or raise max_entries (up to ${MAX_ENTRIES}).]`,
          ]
        : [];
      return {
        content: [heading, ...lines, ...note].join("\n"),
        details: { path: display, entries: lines.length, truncated: more },
      };
    },
  });
}

async function describeEntry(entry: WalkEntry): Promise<string> {
  switch (entry.kind) {
    case "directory":
      return entry.skipped ? `${entry.relativePath}/  (not expanded)` : `${entry.relativePath}/`;
    case "symlink":
      return `${entry.relativePath} -> (link)`;
    case "other":
      return `${entry.relativePath}  (special file)`;
    case "file":
      return `${entry.relativePath}  (${await sizeOf(entry.absolutePath)})`;
  }
}

async function sizeOf(absolutePath: string): Promise<string> {
  try {
    return formatBytes((await fs.lstat(absolutePath)).size);
  } catch {
    // The file vanished between listing and stat; the listing is still useful without its size.
    return "size unknown";
  }
}
