import { PostgresAdapter, type Kysely } from "kysely";
import type { Database } from "./database.js";

/** Whether queries of this Kysely instance are compiled for PostgreSQL (for the few statements that differ). */
export function isPostgres(db: Kysely<Database>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
