import { LogLevel, type Logger as BoltLogger } from "@slack/bolt";
import type { Logger } from "@hermes/agent";

const ORDER: Record<LogLevel, number> = { [LogLevel.DEBUG]: 10, [LogLevel.INFO]: 20, [LogLevel.WARN]: 30, [LogLevel.ERROR]: 40 };

/**
 * Bolt's logger interface on top of the gateway's structured logger, so Bolt and its WebClient log where everything
 * else does (and through the same secret redaction) instead of to the console.
 */
export function boltLoggerFor(logger: Logger): BoltLogger {
  let level: LogLevel = LogLevel.INFO;
  const write = (at: LogLevel, parts: unknown[]): void => {
    if (ORDER[at] < ORDER[level]) return;
    const message = parts.map((part) => (part instanceof Error ? part.message : typeof part === "string" ? part : safeJson(part))).join(" ");
    if (at === LogLevel.DEBUG) logger.debug(message);
    else if (at === LogLevel.INFO) logger.info(message);
    else if (at === LogLevel.WARN) logger.warn(message);
    else logger.error(message);
  };
  return {
    debug: (...parts: unknown[]) => write(LogLevel.DEBUG, parts),
    info: (...parts: unknown[]) => write(LogLevel.INFO, parts),
    warn: (...parts: unknown[]) => write(LogLevel.WARN, parts),
    error: (...parts: unknown[]) => write(LogLevel.ERROR, parts),
    setLevel: (next: LogLevel) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => {},
  };
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
