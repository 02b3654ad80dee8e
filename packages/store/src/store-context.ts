import type { Logger } from "@hermes/agent";
import type { Kysely } from "kysely";
import type { Database } from "./database.js";
import type { SqlRunner } from "./sql-runner.js";

/** What every repository needs: a query builder, a way to run its queries, and the injected clock and id source. */
export interface StoreContext {
  /** Builds queries only; they run through `exec`. */
  db: Kysely<Database>;
  exec: SqlRunner;
  now: () => number;
  newId: () => string;
  logger: Logger;
}
