import type { Kysely, Migration } from "kysely";

/**
 * A conversation's replies, newest first (DeliveryRepository.lastFinalOutcomes): before each slot the scheduler asks
 * how a task's last replies ended, and without this index that read sorts every reply of the status it asks for.
 */
export async function createDeliverySessionIndex(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex("deliveries_by_session").on("deliveries").columns(["session_key", "id"]).execute();
}

export const deliverySessionsMigration: Migration = { up: createDeliverySessionIndex };
