import { promises as fs } from "node:fs";
import { errorCode } from "./fs-errors.js";

const BINARY_SNIFF_BYTES = 8192;

export type TextFile = { ok: true; text: string; bytes: number } | { ok: false; error: string; code?: string };

/** A NUL byte near the start is the cheap, conventional sign of a non-text file. */
export function looksBinary(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, BINARY_SNIFF_BYTES);
  for (let index = 0; index < end; index += 1) {
    if (bytes[index] === 0) return true;
  }
  return false;
}

/** Reads a UTF-8 text file, refusing folders, special files, files over `maxBytes` and binary content. */
export async function readTextFile(absolutePath: string, display: string, maxBytes: number): Promise<TextFile> {
  let size: number;
  try {
    const stats = await fs.stat(absolutePath);
    if (stats.isDirectory()) return { ok: false, error: `${display} is a folder; use list_directory to see its contents.` };
    // Reading a FIFO or device could block forever.
    if (!stats.isFile()) return { ok: false, error: `${display} is not a regular file.` };
    size = stats.size;
  } catch (error) {
    return describeMissing(error, display);
  }
  if (size > maxBytes) {
    return { ok: false, error: `${display} is too large (${formatBytes(size)}; the limit is ${formatBytes(maxBytes)}).` };
  }
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(absolutePath);
  } catch (error) {
    return describeMissing(error, display);
  }
  if (looksBinary(bytes)) return { ok: false, error: `${display} looks like a binary file; only text files are supported.` };
  return { ok: true, text: bytes.toString("utf8"), bytes: bytes.length };
}

/** Splits on LF or CRLF; a final line break does not start another line. */
export function splitLines(text: string): string[] {
  if (text.length === 0) return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

export function countLines(text: string): number {
  return splitLines(text).length;
}

export function numberLine(lineNumber: number, text: string): string {
  return `${String(lineNumber).padStart(6)}| ${text}`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  return `${(bytes / (1024 * 1024 * 1024)).toFixed(1)} GB`;
}

function describeMissing(error: unknown, display: string): TextFile {
  const code = errorCode(error);
  if (code === undefined) throw error;
  if (code === "ENOENT" || code === "ENOTDIR") return { ok: false, error: `File not found: ${display}`, code };
  if (code === "EACCES" || code === "EPERM") return { ok: false, error: `${display} cannot be read (permission denied).`, code };
  return { ok: false, error: `${display} could not be read (${code}).`, code };
}
