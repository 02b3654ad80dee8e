import { sql, type Kysely, type Selectable } from "kysely";
import type { Database, DeliveriesTable } from "./database.js";
import { isPostgres } from "./dialect.js";
import { preparedListQuery, preparedQuery, type BoundQuery, type Param } from "./prepared-query.js";
import type { DeliveryStatus } from "./types.js";

// The statements of the outbox (deliveries.ts): every reply is enqueued, claimed and marked sent through them, so
// they are prepared once (prepared-query.ts).

export const NO_CLAIM = { claim_owner: null, claim_expires_at: null } as const;

/** The values of a new delivery row. */
export interface DeliveryValues {
  inboundId: number | null;
  sessionKey: string | null;
  platform: string;
  chatId: string;
  threadId: string | null;
  replyToMessageId: string | null;
  text: string;
  kind: string;
  /** JSON (delivery-buttons.ts), null for none. */
  buttons: string | null;
  now: number;
}

const buildInsert = (db: Kysely<Database>, p: Param<DeliveryValues>) =>
  db.insertInto("deliveries").values({
    inbound_id: p("inboundId"),
    session_key: p("sessionKey"),
    platform: p("platform"),
    chat_id: p("chatId"),
    thread_id: p("threadId"),
    reply_to_message_id: p("replyToMessageId"),
    text: p("text"),
    kind: p("kind"),
    buttons: p("buttons"),
    status: "pending",
    attempts: 0,
    created_at: p("now"),
    updated_at: p("now"),
    claim_owner: null,
    claim_expires_at: null,
    next_attempt_at: null,
  });
export const insert = preparedQuery(buildInsert);
export const insertReturning = preparedQuery((db, p: Param<DeliveryValues>) => buildInsert(db, p).returningAll());
export const byId = preparedQuery((db, p: Param<{ id: number }>) => db.selectFrom("deliveries").selectAll().where("id", "=", p("id")));

/**
 * The due chat heads of `platforms` that nobody holds (or whose lease ran out), oldest first: see `claim`. A head is a
 * pending row with no older pending row of its chat; asked per row (an index probe) rather than grouping every pending
 * row by chat, the claim reads only as far as the rows it takes, however many replies wait.
 */
const claimable = (db: Kysely<Database>, p: Param<{ now: number }>, platforms: readonly string[]) =>
  db
    .selectFrom("deliveries as d")
    .select("d.id")
    .where("d.status", "=", "pending")
    .where("d.platform", "in", [...platforms])
    .where((eb) => eb.or([eb("d.next_attempt_at", "is", null), eb("d.next_attempt_at", "<=", p("now"))]))
    .where((eb) => eb.or([eb("d.claim_owner", "is", null), eb("d.claim_expires_at", "<=", p("now"))]))
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("deliveries as older")
            .select(sql.lit(1).as("one"))
            .where("older.status", "=", "pending")
            .whereRef("older.platform", "=", "d.platform")
            .whereRef("older.chat_id", "=", "d.chat_id")
            .whereRef("older.id", "<", "d.id"),
        ),
      ),
    )
    .orderBy("d.id");
// A LIMIT is written into the SQL, not bound: SQLite runs these several times slower with a bound one (it cannot plan
// the subquery's ORDER BY ... LIMIT for a count it does not know).
export const anyClaimable = preparedListQuery((db, p: Param<{ now: number }>, platforms: readonly string[]) => claimable(db, p, platforms).limit(sql.lit(1)));

type ClaimDue = (db: Kysely<Database>, values: { owner: string; now: number; expiresAt: number }, platforms: readonly string[]) => BoundQuery<Selectable<DeliveriesTable>>;

/** Claims that take more rows at once than this are rare enough to be compiled per call. */
const MAX_PREPARED_CLAIM_LIMIT = 64;
const claimsByLimit = new Map<number, ClaimDue>();

/** Claims at most `limit` (a positive integer) of the claimable rows, returning them. */
export function claimDue(limit: number): ClaimDue {
  let claim = claimsByLimit.get(limit);
  if (claim === undefined) {
    // SQLite runs the UPDATE with its subquery under the one write lock. PostgreSQL runs it under READ COMMITTED, with
    // claims of other processes at the same moment: the subquery locks the rows it picks and skips those another
    // claim has locked (FOR UPDATE SKIP LOCKED; a row changed since the snapshot is checked again as it is locked),
    // and the claim conditions are repeated on the row the UPDATE writes. There the pick is a MATERIALIZED CTE, run
    // once: as `id IN (subquery)` the planner may rescan the subquery per row it updates (a nested-loop semi-join),
    // and each rescan skips the rows this UPDATE has just changed and takes the next ones, so the LIMIT held for none.
    claim = preparedListQuery((db, p: Param<{ owner: string; now: number; expiresAt: number }>, platforms: readonly string[]) => {
      if (!isPostgres(db)) {
        return db
          .updateTable("deliveries")
          .set({ claim_owner: p("owner"), claim_expires_at: p("expiresAt") })
          .where("id", "in", claimable(db, p, platforms).limit(sql.lit(limit)))
          .returningAll();
      }
      return db
        .with(
          (cte) => cte("picked").materialized(),
          () => claimable(db, p, platforms).limit(sql.lit(limit)).forUpdate().skipLocked(),
        )
        .updateTable("deliveries")
        .set({ claim_owner: p("owner"), claim_expires_at: p("expiresAt") })
        .where("id", "in", (eb) => eb.selectFrom("picked").select("picked.id"))
        .where("status", "=", "pending")
        .where((eb) => eb.or([eb("claim_owner", "is", null), eb("claim_expires_at", "<=", p("now"))]))
        .returningAll();
    });
    if (limit <= MAX_PREPARED_CLAIM_LIMIT) claimsByLimit.set(limit, claim);
  }
  return claim;
}
export const nextDue = preparedListQuery((db, p: Param<{ now: number }>, platforms: readonly string[]) =>
  db
    .selectFrom("deliveries")
    .select((eb) => eb.fn.min<number>("next_attempt_at").as("at"))
    .where("status", "=", "pending")
    .where("platform", "in", [...platforms])
    .where("next_attempt_at", ">", p("now")),
);

/** The writes of a sender, each only to a row it holds that is still pending (see DeliveryRepository). */
const held = (db: Kysely<Database>, p: Param<{ id: number; owner: string }>) =>
  db.updateTable("deliveries").where("id", "=", p("id")).where("claim_owner", "=", p("owner")).where("status", "=", "pending");
export const renewHeld = preparedQuery((db, p: Param<{ id: number; owner: string; expiresAt: number }>) => held(db, p).set({ claim_expires_at: p("expiresAt") }));
export const partSentHeld = preparedQuery((db, p: Param<{ id: number; owner: string; partsSent: number; now: number }>) =>
  held(db, p).set({ parts_sent: p("partsSent"), updated_at: p("now") }),
);
export const sentHeld = preparedQuery((db, p: Param<{ id: number; owner: string; now: number }>) =>
  held(db, p).set({ status: "sent", updated_at: p("now"), ...NO_CLAIM }),
);
export const failedHeld = preparedQuery(
  (db, p: Param<{ id: number; owner: string; error: string; status: DeliveryStatus; nextAttemptAt: number | null; now: number }>) =>
    held(db, p).set({
      attempts: sql<number>`attempts + 1`,
      last_error: p("error"),
      status: p("status"),
      next_attempt_at: p("nextAttemptAt"),
      updated_at: p("now"),
      ...NO_CLAIM,
    }),
);
export const deferHeld = preparedQuery((db, p: Param<{ id: number; owner: string; until: number; now: number }>) =>
  held(db, p).set({ next_attempt_at: p("until"), updated_at: p("now"), ...NO_CLAIM }),
);
