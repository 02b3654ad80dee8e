import type { Logger, LogLevel } from "@hermes/agent";
import type { Logger as PinoLogger } from "pino";
import { prepareFields } from "./log-fields.js";

/**
 * Our `Logger` port (`info("message", {fields})`) on a pino logger (`info({fields}, "message")`). Bindings are merged
 * here rather than through pino's `child`, which would repeat a key bound twice (adapters and the app both bind
 * `platform`); as before, a call's own fields win over bindings.
 */
export function loggerFromPino(pino: PinoLogger, mask: (text: string) => string, bindings: Record<string, unknown> = {}): Logger {
  const at =
    (level: LogLevel) =>
    (message: string, fields?: Record<string, unknown>): void => {
      if (!pino.isLevelEnabled(level)) return;
      pino[level](prepareFields(fields === undefined ? bindings : { ...bindings, ...fields }, mask), mask(message));
    };
  return {
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    child: (extra) => loggerFromPino(pino, mask, { ...bindings, ...extra }),
  };
}
