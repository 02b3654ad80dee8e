import type { StoreContext } from "./store-context.js";

/**
 * The platform messages a streamed reply already occupies, by 0-based part: the final reply edits them instead of
 * sending its text again, also when another process (or this one after a restart) sends it. Rows go with their inbound.
 */
export interface StreamPartRepository {
  /** Part `part` of the inbound's reply is the platform message `messageId`; recording a part again replaces it. */
  record(inboundId: number, part: number, messageId: string): Promise<void>;
  /** The message ids ordered by part. */
  list(inboundId: number): Promise<string[]>;
  clear(inboundId: number): Promise<void>;
}

export function createStreamPartRepository(ctx: StoreContext): StreamPartRepository {
  const { db, exec } = ctx;
  return {
    async record(inboundId, part, messageId) {
      if (!Number.isSafeInteger(part) || part < 0) throw new RangeError(`stream part must be a whole number from 0, got ${String(part)}`);
      const now = ctx.now();
      await exec.run(
        db
          .insertInto("stream_parts")
          .values({ inbound_id: inboundId, part, message_id: messageId, created_at: now })
          .onConflict((oc) => oc.columns(["inbound_id", "part"]).doUpdateSet({ message_id: messageId, created_at: now })),
      );
    },

    async list(inboundId) {
      const rows = await exec.all(db.selectFrom("stream_parts").select("message_id").where("inbound_id", "=", inboundId).orderBy("part"));
      return rows.map((row) => row.message_id);
    },

    async clear(inboundId) {
      await exec.run(db.deleteFrom("stream_parts").where("inbound_id", "=", inboundId));
    },
  };
}
