import type { ToolResult } from "../tools/types.js";

/** The errno code of a Node file-system error, if the value is one. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  const code = (error as { code: unknown }).code;
  return typeof code === "string" ? code : undefined;
}

export function toolError(message: string, details?: Record<string, unknown>): ToolResult {
  return details === undefined ? { content: message, isError: true } : { content: message, isError: true, details };
}

const EXPLANATIONS: Record<string, string> = {
  ENOENT: "does not exist",
  EACCES: "cannot be accessed (permission denied)",
  EPERM: "cannot be changed (operation not permitted)",
  EISDIR: "is a folder, not a file",
  ENOTDIR: "has a parent that is a file, not a folder",
  EEXIST: "already exists",
  ENAMETOOLONG: "has a name that is too long",
  ELOOP: "has too many levels of symbolic links",
  EROFS: "is on a read-only file system",
  ENOSPC: "cannot be written: the disk is full",
  EDQUOT: "cannot be written: the disk quota is exceeded",
  EBUSY: "is busy",
  EMFILE: "cannot be opened: too many open files",
};

/**
 * Turns a file-system failure into a result the model can act on.
 * Node's own message is not used because it carries the real absolute path.
 * Anything without an errno code is a bug and is rethrown.
 */
export function fsFailure(error: unknown, display: string): ToolResult {
  const code = errorCode(error);
  if (code === undefined) throw error;
  const explanation = EXPLANATIONS[code] ?? `could not be accessed (${code})`;
  return toolError(`${display} ${explanation}.`, { code });
}
