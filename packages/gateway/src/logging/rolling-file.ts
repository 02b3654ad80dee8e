import { lstatSync, mkdirSync, renameSync, rmSync, symlinkSync } from "node:fs";
import path from "node:path";
import pinoRoll from "pino-roll";

export interface RollingLogFileOptions {
  dir: string;
  /** Files are `<name>.<n>.log`; `<name>.log` is a symbolic link to the one written now. */
  name: string;
  /** A file is rolled once it reaches this size. */
  maxBytes: number;
  /** Files kept in all, the current one included; older ones are deleted when the log rolls. */
  keep: number;
  /** A write, roll or clean-up problem; logging goes on. */
  onError: (error: Error) => void;
}

export interface RollingLogFile {
  write(line: string): void;
  /** The numbered file written now. */
  currentFile(): string;
  /** Fired after old files were deleted following a roll (tests wait for it). */
  onCleanup(listener: () => void): void;
  close(): void;
}

/**
 * JSON-lines log file rolled by size with pino-roll, written synchronously so the last line before `process.exit`
 * is on disk. Numbering continues from the highest existing file, so restarts append to the latest one.
 */
export async function openRollingLogFile(options: RollingLogFileOptions): Promise<RollingLogFile> {
  mkdirSync(options.dir, { recursive: true });
  const link = path.join(options.dir, `${options.name}.log`);
  keepLegacyFile(link, path.join(options.dir, `${options.name}.0.log`));
  const stream = await pinoRoll({
    file: path.join(options.dir, options.name),
    extension: ".log",
    size: `${options.maxBytes}b`,
    limit: { count: options.keep, removeOtherLogFiles: true },
    sync: true,
  });
  const pointLink = (): void => {
    try {
      pointSymlink(link, path.basename(stream.file));
    } catch (error) {
      options.onError(asError(error));
    }
  };
  // A sonic-boom stream emits "ready" after every (re)open, i.e. at start and after each roll.
  stream.on("ready", pointLink);
  stream.on("error", (error: unknown) => options.onError(asError(error)));
  pointLink();
  let closed = false;
  return {
    write: (line) => {
      try {
        stream.write(line);
      } catch (error) {
        options.onError(asError(error));
      }
    },
    currentFile: () => stream.file,
    onCleanup: (listener) => void stream.on("cleanup-complete", listener),
    close: () => {
      if (closed) return;
      closed = true;
      stream.end();
    },
  };
}

/** Earlier versions wrote `<name>.log` as a plain file; it becomes the oldest numbered file, pruned first. */
function keepLegacyFile(link: string, oldest: string): void {
  try {
    if (lstatSync(link).isFile()) renameSync(link, oldest);
  } catch {
    // Nothing there yet.
  }
}

/** Replaces the link in one rename, so a reader never finds it missing. */
function pointSymlink(link: string, target: string): void {
  const temporary = `${link}.${process.pid}.tmp`;
  rmSync(temporary, { force: true });
  symlinkSync(target, temporary);
  renameSync(temporary, link);
}

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}
