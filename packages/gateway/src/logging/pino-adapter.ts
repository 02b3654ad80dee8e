import type { Logger, LogLevel } from "@hermes/agent";
import type { Logger as PinoLogger } from "pino";
import { prepareFields } from "./log-fields.js";

/** Our `Logger` port (`info("message", {fields})`) on a pino logger (`info({fields}, "message")`). */
export function loggerFromPino(pino: PinoLogger, mask: (text: string) => string): Logger {
  const at =
    (level: LogLevel) =>
    (message: string, fields?: Record<string, unknown>): void => {
      if (!pino.isLevelEnabled(level)) return;
      if (fields === undefined) pino[level](mask(message));
      else pino[level](prepareFields(fields, mask), mask(message));
    };
  return {
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    child: (bindings) => loggerFromPino(pino.child(prepareFields(bindings, mask)), mask),
  };
}
