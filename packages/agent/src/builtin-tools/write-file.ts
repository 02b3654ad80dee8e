import { promises as fs } from "node:fs";
import path from "node:path";
import { Type } from "@sinclair/typebox";
import { defineTool, type AnyToolDefinition, type ToolResult } from "../tools/types.js";
import { writeFileAtomically, type AtomicWriteOptions } from "./atomic-write.js";
import { errorCode, fsFailure, toolError } from "./fs-errors.js";
import { countLines } from "./text-file.js";
import { declaredPaths, resolveInWorkspace, type Workspace } from "./workspace.js";

const WriteFileParameters = Type.Object({
  path: Type.String({ description: "File path, relative to the workspace root. Missing folders are created." }),
  content: Type.String({ description: "The complete new content of the file." }),
});

export function writeFileTool(ws: Workspace, options: AtomicWriteOptions = {}): AnyToolDefinition {
  return defineTool({
    name: "write_file",
    description:
      "Create a file or replace its whole content. Creates missing parent folders; the write is atomic, so the " +
      "file is never left half-written.",
    parameters: WriteFileParameters,
    concurrency: "path-scoped",
    paths: (args) => declaredPaths(ws, args.path),
    guidance:
      "Use write_file to create new files or to rewrite a file completely; it replaces everything in the file, so " +
      "pass the full content, never a fragment. To change part of an existing file, prefer patch, which is safer " +
      "and cheaper. Paths are relative to the workspace root and cannot leave it.",
    handler: async (args): Promise<ToolResult> => {
      const resolved = await resolveInWorkspace(ws, args.path, "write");
      if (!resolved.ok) return toolError(resolved.error);
      const { path: target, display } = resolved;

      const existing = await existingKind(target);
      if (existing === "directory") return toolError(`${display} is a folder; give a file path instead.`);
      if (existing === "other") return toolError(`${display} is not a regular file and cannot be overwritten.`);

      try {
        await fs.mkdir(path.dirname(target), { recursive: true });
      } catch (error) {
        const code = errorCode(error);
        if (code === "EEXIST" || code === "ENOTDIR") {
          return toolError(`Cannot create ${display}: one of its parent paths is a file, not a folder.`);
        }
        return fsFailure(error, display);
      }
      try {
        await writeFileAtomically(target, args.content, options);
      } catch (error) {
        return fsFailure(error, display);
      }
      const bytes = Buffer.byteLength(args.content, "utf8");
      const lines = countLines(args.content);
      const verb = existing === "file" ? "Overwrote" : "Created";
      return {
        content: `${verb} ${display}: wrote ${bytes} bytes (${lines} ${lines === 1 ? "line" : "lines"}).`,
        details: { path: display, bytes, lines, created: existing === "missing" },
      };
    },
  });
}

async function existingKind(target: string): Promise<"missing" | "file" | "directory" | "other"> {
  try {
    const stats = await fs.stat(target);
    if (stats.isDirectory()) return "directory";
    return stats.isFile() ? "file" : "other";
  } catch (error) {
    // Anything else (a file used as a parent folder, no permission) surfaces when the write is attempted.
    if (errorCode(error) !== undefined) return "missing";
    throw error;
  }
}
