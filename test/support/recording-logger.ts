import type { Logger, LogLevel } from "@hermes/agent";

export interface LogEntry {
  level: LogLevel;
  message: string;
  fields: Record<string, unknown>;
}

export interface RecordingLogger extends Logger {
  readonly entries: LogEntry[];
}

/** A logger that keeps every entry (children's too, with their bindings), for tests of what the operator is told. */
export function recordingLogger(entries: LogEntry[] = [], bindings: Record<string, unknown> = {}): RecordingLogger {
  const at = (level: LogLevel) => (message: string, fields: Record<string, unknown> = {}) =>
    void entries.push({ level, message, fields: { ...bindings, ...fields } });
  return {
    entries,
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    child: (extra) => recordingLogger(entries, { ...bindings, ...extra }),
  };
}
