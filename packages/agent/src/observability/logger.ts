/**
 * Structured log sink, the port every part of the agent logs through. Fields are plain data (an Error among them is
 * logged with its stack); secrets are redacted before anything is written. The gateway implements it on pino; the
 * core itself depends on no logging library.
 */
export type LogLevel = "debug" | "info" | "warn" | "error";

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(bindings: Record<string, unknown>): Logger;
}

const LEVEL_ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface JsonLoggerOptions {
  level?: LogLevel;
  write?: (line: string, level: LogLevel) => void;
  redact?: (text: string) => string;
  bindings?: Record<string, unknown>;
  now?: () => Date;
}

/** A dependency-free JSON-lines logger (one object per line) for embedders and tests. */
export function createJsonLogger(options: JsonLoggerOptions = {}): Logger {
  const threshold = LEVEL_ORDER[options.level ?? "info"];
  const write = options.write ?? ((line: string) => process.stderr.write(line + "\n"));
  const redact = options.redact ?? ((text: string) => text);
  const now = options.now ?? (() => new Date());
  const bindings = options.bindings ?? {};

  const emit = (level: LogLevel, message: string, fields?: Record<string, unknown>): void => {
    if (LEVEL_ORDER[level] < threshold) return;
    const record = { time: now().toISOString(), level, msg: message, ...bindings, ...fields };
    let line: string;
    try {
      line = JSON.stringify(record, errorReplacer);
    } catch {
      line = JSON.stringify({ time: record.time, level, msg: message, note: "unserializable fields" });
    }
    write(redact(line), level);
  };

  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
    child: (extra) => createJsonLogger({ ...options, bindings: { ...bindings, ...extra } }),
  };
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  return value;
}

/** A logger that drops everything; the default inside the library so embedding apps choose where logs go. */
export const silentLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => silentLogger,
};
