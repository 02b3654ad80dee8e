import { sql, type Selectable } from "kysely";
import type { CronJobsTable } from "./database.js";
import type { StoreContext } from "./store-context.js";
import type { ChatType, CronJobAdvance, CronJobKind, CronJobRecord, CronRunStatus, NewCronJob } from "./types.js";

/** The prompts chats scheduled; a scheduler takes each slot with `advance`. Never pruned: jobs are configuration. */
export interface CronJobRepository {
  /** Throws on an id that is not 8 characters of [a-z0-9] or is taken (the caller makes the id). */
  create(job: NewCronJob): Promise<void>;
  get(id: string): Promise<CronJobRecord | undefined>;
  /** The chat's jobs, oldest first. */
  listForChat(platform: string, chatId: string): Promise<CronJobRecord[]>;
  /** Every job, oldest first, at most `limit` (default 1,000). */
  listAll(limit?: number): Promise<CronJobRecord[]>;
  /** Whether a job went. */
  remove(id: string): Promise<boolean>;
  /**
   * The jobs whose slot is at or before `now`, the earliest first (ties by id), at most `limit`; given `platforms`,
   * only theirs (a scheduler's, so overdue jobs of a platform it does not run never fill its batch). `due(
   * Number.MAX_SAFE_INTEGER, 1)` is the job due next, for a scheduler to sleep until it.
   */
  due(now: number, limit: number, platforms?: readonly string[]): Promise<CronJobRecord[]>;
  /**
   * Compare-and-set on the slot: moves the job only while its next run is still `expectedNextRunAt` (null matches a
   * job with none), so of two schedulers taking one slot exactly one gets true. Counts a run when `lastStatus` is
   * "ran". A move to the same slot is refused (it would let a second taker win as well).
   */
  advance(id: string, expectedNextRunAt: number | null, next: CronJobAdvance): Promise<boolean>;
}

const CRON_JOB_ID = /^[a-z0-9]{8}$/;
const DEFAULT_LIST_LIMIT = 1_000;

export function createCronJobRepository(ctx: StoreContext): CronJobRepository {
  const { db, exec } = ctx;
  return {
    async create(job) {
      if (!CRON_JOB_ID.test(job.id)) throw new RangeError(`cron job id must be 8 characters of [a-z0-9], got ${JSON.stringify(job.id)}`);
      await exec.run(
        db.insertInto("cron_jobs").values({
          id: job.id,
          platform: job.platform,
          chat_id: job.chatId,
          chat_type: job.chatType,
          thread_id: job.threadId ?? null,
          creator_id: job.creatorId,
          session_key: job.sessionKey,
          schedule: job.schedule,
          kind: job.kind,
          prompt: job.prompt,
          next_run_at: job.nextRunAt,
          last_run_at: null,
          last_status: null,
          runs: 0,
          created_at: job.createdAt,
        }),
      );
    },

    async get(id) {
      const row = await exec.first(db.selectFrom("cron_jobs").selectAll().where("id", "=", id));
      return row && toCronJobRecord(row);
    },

    async listForChat(platform, chatId) {
      const rows = await exec.all(
        db.selectFrom("cron_jobs").selectAll().where("platform", "=", platform).where("chat_id", "=", chatId).orderBy("created_at").orderBy("id"),
      );
      return rows.map(toCronJobRecord);
    },

    async listAll(limit = DEFAULT_LIST_LIMIT) {
      const rows = await exec.all(db.selectFrom("cron_jobs").selectAll().orderBy("created_at").orderBy("id").limit(Math.max(0, Math.floor(limit))));
      return rows.map(toCronJobRecord);
    },

    async remove(id) {
      return (await exec.run(db.deleteFrom("cron_jobs").where("id", "=", id))).changes > 0;
    },

    async due(now, limit, platforms) {
      const take = Math.floor(limit);
      if (!Number.isSafeInteger(take) || take < 1) throw new RangeError(`due limit must be a positive integer, got ${String(limit)}`);
      if (platforms?.length === 0) return [];
      let query = db.selectFrom("cron_jobs").selectAll().where("next_run_at", "<=", now);
      if (platforms !== undefined) query = query.where("platform", "in", [...platforms]);
      const rows = await exec.all(
        query
          .orderBy("next_run_at")
          .orderBy("id")
          // Written into the SQL: SQLite runs ORDER BY … LIMIT several times slower with a bound limit.
          .limit(sql.lit(take)),
      );
      return rows.map(toCronJobRecord);
    },

    async advance(id, expectedNextRunAt, next) {
      if (next.nextRunAt === expectedNextRunAt) return false;
      const ran = next.lastStatus === "ran";
      const update = db
        .updateTable("cron_jobs")
        .set((eb) => ({
          next_run_at: next.nextRunAt,
          last_run_at: next.lastRunAt,
          last_status: next.lastStatus,
          runs: ran ? eb("runs", "+", 1) : eb.ref("runs"),
        }))
        .where("id", "=", id);
      // `= null` matches nothing in SQL; a job without a next run is matched with IS NULL (both dialects).
      const guarded = expectedNextRunAt === null ? update.where("next_run_at", "is", null) : update.where("next_run_at", "=", expectedNextRunAt);
      return (await exec.run(guarded)).changes > 0;
    },
  };
}

function toCronJobRecord(row: Selectable<CronJobsTable>): CronJobRecord {
  return {
    id: row.id,
    platform: row.platform,
    chatId: row.chat_id,
    chatType: row.chat_type as ChatType,
    ...(row.thread_id === null ? {} : { threadId: row.thread_id }),
    creatorId: row.creator_id,
    sessionKey: row.session_key,
    schedule: row.schedule,
    kind: row.kind as CronJobKind,
    prompt: row.prompt,
    nextRunAt: row.next_run_at,
    createdAt: row.created_at,
    ...(row.last_run_at === null ? {} : { lastRunAt: row.last_run_at }),
    ...(row.last_status === null ? {} : { lastStatus: row.last_status as CronRunStatus }),
    runs: row.runs,
  };
}
