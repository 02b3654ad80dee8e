import type { Migration } from "kysely";
import { createDeliverySessionIndex } from "../../migrations/0014-delivery-sessions.js";

/** PostgreSQL's side of SQLite's 0014_delivery_sessions (../../migrations/0014-delivery-sessions.ts explains it). */
export const deliverySessionsPostgresMigration: Migration = { up: createDeliverySessionIndex };
