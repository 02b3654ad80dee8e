import type { Logger, LogLevel } from "@hermes/agent";
import pino, { type StreamEntry } from "pino";
import { loggerFromPino } from "./pino-adapter.js";
import { openRollingLogFile } from "./rolling-file.js";
import { createSecretMask } from "./secret-mask.js";
import { createStderrSink, type TextStream } from "./stderr-sink.js";

export interface GatewayLoggerOptions {
  level: LogLevel;
  /** Folder for `<name>.log` (JSON lines, rolled); no file when absent, and then every line goes to stderr. */
  logsDir?: string;
  name: string;
  /** Also write lines at or above this level to stderr. */
  stderrLevel?: LogLevel;
  /** Configured secret values; masked wherever they appear, besides the usual token shapes. */
  secrets: readonly string[];
  /** Default `process.stderr`. */
  stderr?: TextStream;
  /** Human lines on stderr; default: when stderr is a terminal. */
  pretty?: boolean;
  /** Colours in pretty lines; default: unless NO_COLOR is set. */
  colorize?: boolean;
  /** Default: roll at 10 MB, keep 7 files. */
  rotation?: { maxBytes: number; keep: number };
}

export const DEFAULT_LOG_ROTATION = { maxBytes: 10 * 1024 * 1024, keep: 7 } as const;

// Field paths that hold credentials by name; values are masked anyway, this also catches secrets nobody configured.
const REDACTED_PATHS = [
  "token",
  "apiKey",
  "password",
  "secret",
  "authorization",
  "*.token",
  "*.apiKey",
  "*.password",
  "*.secret",
  "*.authorization",
  "headers.cookie",
  "*.headers.authorization",
  "*.headers.cookie",
];

/**
 * The operator's log on pino: JSON lines in `<logsDir>/<name>.log` (rolled by size, a bounded number kept) and, at
 * `stderrLevel`, on stderr — pretty on a terminal, JSON otherwise. Every byte passes the secret mask. All writes are
 * synchronous, so the last line before `process.exit` is not lost.
 */
export async function createGatewayLogger(options: GatewayLoggerOptions): Promise<Logger> {
  const mask = createSecretMask(options.secrets);
  const stderr = options.stderr ?? process.stderr;
  const report = reportOnce(stderr, mask);
  const streams: StreamEntry<LogLevel>[] = [];
  let toFile = false;
  if (options.logsDir) {
    const rotation = options.rotation ?? DEFAULT_LOG_ROTATION;
    try {
      const file = await openRollingLogFile({ dir: options.logsDir, name: options.name, ...rotation, onError: report });
      streams.push({ level: options.level, stream: file });
      toFile = true;
    } catch (error) {
      report(error instanceof Error ? error : new Error(String(error)));
    }
  }
  // Without a file the log must still go somewhere: stderr gets every line.
  const stderrLevel = toFile ? options.stderrLevel : options.level;
  if (stderrLevel) {
    const pretty = options.pretty ?? stderr.isTTY === true;
    const sink = await createStderrSink({ stream: stderr, pretty, colorize: options.colorize ?? process.env.NO_COLOR === undefined, mask });
    streams.push({ level: stderrLevel, stream: sink });
  }
  const logger = pino<never, false>(
    {
      level: options.level,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED_PATHS, censor: "[REDACTED]" },
      // The last pass, over the whole line: catches what field-by-field masking cannot see (keys, odd values).
      hooks: { streamWrite: mask },
    },
    pino.multistream(streams),
  );
  return loggerFromPino(logger, mask);
}

/** A broken log file must not break the process or flood stderr: each distinct problem is reported once. */
function reportOnce(stderr: TextStream, mask: (text: string) => string): (error: Error) => void {
  const seen = new Set<string>();
  return (error) => {
    if (seen.has(error.message)) return;
    seen.add(error.message);
    stderr.write(mask(`hermes: cannot write the log file: ${error.message}\n`));
  };
}
