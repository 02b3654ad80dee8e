import { Type } from "@sinclair/typebox";
import { defineTool, type AnyToolDefinition, type ToolResult } from "../tools/types.js";
import { writeFileAtomically, type AtomicWriteOptions } from "./atomic-write.js";
import { fsFailure, toolError } from "./fs-errors.js";
import { findMatches, findWhitespaceInsensitiveMatch, lineNumberAt } from "./text-match.js";
import { numberLine, readTextFile, splitLines } from "./text-file.js";
import { declaredPaths, resolveInWorkspace, type Workspace } from "./workspace.js";

const MAX_FILE_BYTES = 50 * 1024 * 1024;
const EXCERPT_CONTEXT_LINES = 2;
const EXCERPT_MAX_LINES = 16;
const MAX_LISTED_MATCH_LINES = 10;

const PatchParameters = Type.Object({
  path: Type.String({ description: "File to edit, relative to the workspace root." }),
  old_string: Type.String({ description: "Exact text to replace, including indentation and line breaks." }),
  new_string: Type.String({ description: "Replacement text." }),
  replace_all: Type.Optional(
    Type.Boolean({ description: "Replace every occurrence instead of requiring exactly one (default false)." }),
  ),
});

export function patchTool(ws: Workspace, options: AtomicWriteOptions = {}): AnyToolDefinition {
  return defineTool({
    name: "patch",
    description:
      "Edit a file by replacing an exact piece of text (old_string) with new text (new_string). old_string must " +
      "occur exactly once unless replace_all is true.",
    parameters: PatchParameters,
    concurrency: "path-scoped",
    paths: (args) => declaredPaths(ws, args.path),
    guidance:
      "Use patch for targeted edits to existing files. Read the file first and copy old_string exactly as it " +
      "appears, without the line-number prefix read_file adds, keeping indentation and line breaks. Include enough " +
      "surrounding lines to make old_string unique; if it matches several places, the call fails and says how many, " +
      "so add context or set replace_all when every occurrence should change. To delete text, pass an empty " +
      "new_string. To create a file or rewrite it entirely, use write_file instead.",
    handler: async (args): Promise<ToolResult> => {
      if (args.old_string.length === 0) {
        return toolError("old_string is empty; give the exact text to replace (use write_file to create a file).");
      }
      if (args.old_string === args.new_string) {
        return toolError("old_string and new_string are identical, so the patch would change nothing.");
      }
      const resolved = await resolveInWorkspace(ws, args.path, "write");
      if (!resolved.ok) return toolError(resolved.error);
      const { path: target, display } = resolved;

      const file = await readTextFile(target, display, MAX_FILE_BYTES);
      if (!file.ok) {
        const hint = file.code === "ENOENT" || file.code === "ENOTDIR" ? " Use write_file to create a new file." : "";
        return toolError(`${file.error}${hint}`);
      }
      const content = file.text;
      const matches = findMatches(content, args.old_string);

      if (matches.length === 0) return toolError(noMatchMessage(content, args.old_string, display));
      if (matches.length > 1 && args.replace_all !== true) {
        return toolError(ambiguityMessage(content, matches, display), { matches: matches.length });
      }

      const first = matches[0] ?? 0;
      const updated =
        args.replace_all === true
          ? content.split(args.old_string).join(args.new_string)
          : content.slice(0, first) + args.new_string + content.slice(first + args.old_string.length);
      try {
        await writeFileAtomically(target, updated, options);
      } catch (error) {
        return fsFailure(error, display);
      }

      const count = matches.length;
      const header = `Patched ${display}: ${count} ${count === 1 ? "replacement" : "replacements"}.`;
      const excerpt = excerptAround(updated, first, args.new_string.length);
      const more = count > 1 ? `\n[Excerpt shows the first replacement; ${count - 1} more not shown.]` : "";
      return {
        content: `${header}\n${excerpt}${more}`,
        details: { path: display, replacements: count },
      };
    },
  });
}

function noMatchMessage(content: string, oldString: string, display: string): string {
  const base = `old_string was not found in ${display}.`;
  const near = findWhitespaceInsensitiveMatch(content, oldString);
  if (near === undefined) {
    return `${base} Read the file again and copy the text exactly, including indentation and line breaks.`;
  }
  return (
    `${base} A match that differs only in whitespace (indentation, spaces or line endings) exists near line ` +
    `${lineNumberAt(content, near)}. Read the file again and copy that text exactly.`
  );
}

function ambiguityMessage(content: string, matches: readonly number[], display: string): string {
  const lines = matches.slice(0, MAX_LISTED_MATCH_LINES).map((offset) => lineNumberAt(content, offset));
  const listed = lines.join(", ") + (matches.length > lines.length ? ", …" : "");
  return (
    `old_string occurs ${matches.length} times in ${display} (lines ${listed}). Add more surrounding context to ` +
    `old_string so that it matches exactly one place, or set replace_all to true to change every occurrence.`
  );
}

function excerptAround(updated: string, start: number, insertedLength: number): string {
  const lines = splitLines(updated);
  if (lines.length === 0) return "(the file is now empty)";
  const firstChanged = Math.min(lines.length, lineNumberAt(updated, start));
  const lastChanged = Math.min(lines.length, lineNumberAt(updated, Math.max(start, start + insertedLength - 1)));
  const from = Math.max(1, firstChanged - EXCERPT_CONTEXT_LINES);
  const to = Math.min(lines.length, lastChanged + EXCERPT_CONTEXT_LINES, from + EXCERPT_MAX_LINES - 1);
  const shown: string[] = [];
  for (let lineNumber = from; lineNumber <= to; lineNumber += 1) {
    shown.push(numberLine(lineNumber, clip(lines[lineNumber - 1] ?? "")));
  }
  if (to < lastChanged + EXCERPT_CONTEXT_LINES && to < lines.length) shown.push("     …");
  return shown.join("\n");
}

function clip(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)} …` : text;
}
