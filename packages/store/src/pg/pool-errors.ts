import type pg from "pg";

/**
 * Keeps a dropped PostgreSQL connection (a failover, a server restart, idle_in_transaction_session_timeout) from ending
 * the process. node-postgres emits 'error' on the client as well as failing its query; the pool listens for it only
 * while the client is idle, so a connection that drops while checked out (a transaction, the readiness probe, a
 * migration) would emit an unheard 'error'. Its failed query reports the loss to the caller, and the pool discards a
 * client that is no longer queryable when it comes back, so the extra event needs no handling. An idle connection's
 * drop is the pool's 'error', told to `onIdleError`.
 */
export function surviveDroppedConnections(pool: pg.Pool, onIdleError: (error: Error) => void): void {
  pool.on("error", onIdleError);
  pool.on("connect", (client) => {
    client.on("error", () => undefined);
  });
}
