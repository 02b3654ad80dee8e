import type { Logger } from "@hermes/agent";

export interface LogEntry {
  level: "debug" | "info" | "warn" | "error";
  message: string;
  fields: Record<string, unknown>;
}

/** A logger that keeps what it is told, for tests that check what operators would read. */
export function recordingLogger(): Logger & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const make = (bindings: Record<string, unknown>): Logger => ({
    debug: (message, fields) => void entries.push({ level: "debug", message, fields: { ...bindings, ...fields } }),
    info: (message, fields) => void entries.push({ level: "info", message, fields: { ...bindings, ...fields } }),
    warn: (message, fields) => void entries.push({ level: "warn", message, fields: { ...bindings, ...fields } }),
    error: (message, fields) => void entries.push({ level: "error", message, fields: { ...bindings, ...fields } }),
    child: (extra) => make({ ...bindings, ...extra }),
  });
  return Object.assign(make({}), { entries });
}
