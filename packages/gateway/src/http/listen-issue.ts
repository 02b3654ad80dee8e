import type { ConfigIssue } from "../config/errors.js";

/** A port that cannot be opened is a configuration problem (exit 2) naming the setting, not an unexpected failure. */
export function listenIssue(error: unknown, setting: string, address: { host: string; port: number }): ConfigIssue {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const why =
    code === "EADDRINUSE"
      ? "is already in use"
      : code === "EACCES"
        ? "needs privileges this process does not have"
        : `cannot be opened (${error instanceof Error ? error.message : String(error)})`;
  return { setting, message: `${address.host}:${address.port} ${why}` };
}
