import { Type } from "@sinclair/typebox";
import { defineTool, type AnyToolDefinition, type ToolResult } from "../tools/types.js";
import { toolError } from "./fs-errors.js";
import { numberLine, readTextFile, splitLines } from "./text-file.js";
import { declaredPaths, resolveInWorkspace, type Workspace } from "./workspace.js";

const DEFAULT_LINE_LIMIT = 500;
const MAX_LINE_LIMIT = 2000;
const MAX_LINE_CHARS = 2000;
const MAX_OUTPUT_CHARS = 100_000;
const MAX_FILE_BYTES = 50 * 1024 * 1024;

const ReadFileParameters = Type.Object({
  path: Type.String({ description: "File path, relative to the workspace root." }),
  offset: Type.Optional(Type.Integer({ minimum: 1, description: "First line to show, 1-based (default 1)." })),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_LINE_LIMIT,
      description: `Number of lines to show (default ${DEFAULT_LINE_LIMIT}, max ${MAX_LINE_LIMIT}).`,
    }),
  ),
});

export function readFileTool(ws: Workspace): AnyToolDefinition {
  return defineTool({
    name: "read_file",
    description:
      "Read a text file in the workspace. Returns numbered lines (`  12| text`) with a header giving the line range; " +
      "use offset and limit to page through long files.",
    parameters: ReadFileParameters,
    concurrency: "path-scoped",
    paths: (args) => declaredPaths(ws, args.path),
    // The tool pages by itself and tells the model where to continue, so the registry must not cut it.
    maxResultChars: Infinity,
    guidance:
      "Use read_file before editing a file so that patch's old_string can be copied exactly; the line numbers and " +
      "the `| ` separator are not part of the file. Long files come back in pages: when the output ends with a note " +
      "naming an offset, call read_file again with that offset to continue. Binary files and files over 50 MB " +
      "cannot be read. Prefer search_files to locate something in a large file, then read around the hit.",
    handler: async (args, context): Promise<ToolResult> => {
      const resolved = await resolveInWorkspace(ws, args.path, "read", { sessionId: context.sessionId });
      if (!resolved.ok) return toolError(resolved.error);
      const file = await readTextFile(resolved.path, resolved.display, MAX_FILE_BYTES);
      if (!file.ok) return toolError(file.error);
      return renderPage(resolved.display, splitLines(file.text), args.offset ?? 1, args.limit ?? DEFAULT_LINE_LIMIT);
    },
  });
}

function renderPage(display: string, lines: readonly string[], offset: number, requestedLimit: number): ToolResult {
  const total = lines.length;
  if (total === 0) {
    return { content: `File: ${display} (empty)`, details: { path: display, totalLines: 0 } };
  }
  if (offset > total) {
    return toolError(`offset ${offset} is past the end of ${display}, which has ${total} lines.`, { totalLines: total });
  }

  const limit = Math.min(Math.max(1, Math.floor(requestedLimit)), MAX_LINE_LIMIT);
  const lastWanted = Math.min(total, offset + limit - 1);
  const rendered: string[] = [];
  let chars = 0;
  let lastShown = offset - 1;
  let stoppedForSize = false;
  for (let lineNumber = offset; lineNumber <= lastWanted; lineNumber += 1) {
    const line = numberLine(lineNumber, clipLine(lines[lineNumber - 1] ?? ""));
    if (chars + line.length + 1 > MAX_OUTPUT_CHARS && rendered.length > 0) {
      stoppedForSize = true;
      break;
    }
    rendered.push(line);
    chars += line.length + 1;
    lastShown = lineNumber;
  }

  const parts = [`File: ${display} (lines ${offset}–${lastShown} of ${total})`, ...rendered];
  if (stoppedForSize) {
    parts.push(
      `[Output stopped after line ${lastShown} to stay under ${MAX_OUTPUT_CHARS} characters. ` +
        `Call read_file with offset=${lastShown + 1} to continue.]`,
    );
  } else if (lastShown < total) {
    parts.push(`[${total - lastShown} more lines. Call read_file with offset=${lastShown + 1} to continue.]`);
  }
  return {
    content: parts.join("\n"),
    details: { path: display, startLine: offset, endLine: lastShown, totalLines: total, truncated: lastShown < total },
  };
}

function clipLine(text: string): string {
  if (text.length <= MAX_LINE_CHARS) return text;
  return `${text.slice(0, MAX_LINE_CHARS)} … [line truncated: ${text.length} characters in total]`;
}
