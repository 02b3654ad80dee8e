import { isBusyError } from "./busy-retry.js";

/**
 * PostgreSQL's SQLSTATEs for a server that cannot serve now: admin_shutdown, crash_shutdown, cannot_connect_now (a
 * restart or a failover), too_many_connections; any connection_exception (class 08).
 */
const POSTGRES_UNAVAILABLE = new Set(["57P01", "57P02", "57P03", "53300"]);
/** The socket's view of the same (node-postgres passes the system error on). */
const SOCKET_UNAVAILABLE = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH"]);
/** node-postgres and pg-pool errors without a code, and a database refusing connections (55000, too broad a code). */
const UNAVAILABLE_MESSAGES = [/^Connection terminated/, /timeout exceeded when trying to connect/, /is not currently accepting connections/];

/**
 * Whether an operation failed because the database could not be reached or used just then (a PostgreSQL restart, a
 * failover, a connection cut, SQLite's lock still taken after the busy retries), not because of what it asked. Such an
 * operation may succeed if the whole piece of work is done again: a caller whose work is idempotent (an agent run,
 * which its checkpoints and the inbound status make so) should try it again rather than give up on it.
 */
export function isStoreUnavailableError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (isBusyError(error)) return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && (code.startsWith("08") || POSTGRES_UNAVAILABLE.has(code) || SOCKET_UNAVAILABLE.has(code))) return true;
  return UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(error.message));
}
