import path from "node:path";
import type { Logger } from "@hermes/agent";

export interface TextSink {
  write(text: string): unknown;
}

export interface HooksCommandIo {
  stdout: TextSink;
  stderr: TextSink;
  /** The gateway's bundled hooks folder (`BUNDLED_HOOKS_DIR`). */
  bundledDir: string;
  /** HERMES_HOME, resolved. */
  home: string;
  logger: Logger;
  /** Where relative folder arguments start (default: the process's working folder). */
  cwd?: string;
  now?: () => number;
}

export interface HookPaths {
  bundledDir: string;
  operatorDir: string;
  stateFile: string;
}

export function hookPaths(io: HooksCommandIo): HookPaths {
  const operatorDir = path.join(io.home, "hooks");
  return { bundledDir: io.bundledDir, operatorDir, stateFile: path.join(operatorDir, "state.json") };
}

/** Exit codes of `hermes hooks`: 1 when the operation failed, 2 when the command line was wrong. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
