import { appendFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { createJsonLogger, redactSecrets, type LogLevel, type Logger } from "@hermes/agent";

export interface GatewayLoggerOptions {
  level: LogLevel;
  /** Folder for `<name>.log` (JSON lines); no file when absent. */
  logsDir?: string;
  name: string;
  /** Also write lines at or above this level to stderr. */
  stderrLevel?: LogLevel;
  /** Configured secret values; masked wherever they appear, besides the usual token shapes. */
  secrets: readonly string[];
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** The operator's log: JSON lines, secrets masked before anything is written. */
export function createGatewayLogger(options: GatewayLoggerOptions): Logger {
  const file = options.logsDir ? path.join(options.logsDir, `${options.name}.log`) : undefined;
  if (options.logsDir) mkdirSync(options.logsDir, { recursive: true });
  const stderrThreshold = options.stderrLevel ? ORDER[options.stderrLevel] : Infinity;
  return createJsonLogger({
    level: options.level,
    redact: (line) => redactSecrets(line, options.secrets),
    write: (line, level) => {
      if (file) {
        try {
          appendFileSync(file, line + "\n");
        } catch {
          process.stderr.write(line + "\n");
        }
      }
      if (!file || ORDER[level] >= stderrThreshold) process.stderr.write(line + "\n");
    },
  });
}
