import type { WritableCheck } from "@hermes/store";
import { storeTakesWrites } from "./readiness.js";

/** A database that does not answer the write check within this long counts as away (as /readyz's check). */
const CHECK_TIMEOUT_MS = 2_000;

/**
 * For the run queues: whether the state database is away right now (a PostgreSQL server down or refusing
 * connections, a SQLite file that cannot be written). A run that fails then is not counted as a failure: its
 * retries would all be spent within seconds of an outage, after which the message would wait for a restart, and the
 * person would not be answered once the database is back. A check that throws counts as away too.
 */
export function storeOutageCheck(store: { checkWritable(): Promise<WritableCheck> }): () => Promise<boolean> {
  return async () => !(await storeTakesWrites(store, CHECK_TIMEOUT_MS));
}
