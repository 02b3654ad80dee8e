import { createHash } from "node:crypto";
import { sql } from "kysely";
import { isPostgres } from "./dialect.js";
import type { StoreContext } from "./store-context.js";

/** The largest file a put takes unless told otherwise (HERMES_MAX_ATTACHMENT_MB's default). */
export const DEFAULT_MAX_SHARED_FILE_BYTES = 20 * 1024 * 1024;

/** One file's row without its bytes. */
export interface SharedFileEntry {
  /** Relative to HERMES_HOME, `/`-separated. */
  path: string;
  sha256: string;
  size: number;
  version: number;
  /** A tombstone: the file was removed (its content is empty). */
  deleted: boolean;
  sessionKey?: string;
  updatedAt: number;
}

export interface SharedFile extends SharedFileEntry {
  content: Buffer;
}

export type SharedFilePut =
  | { ok: true; version: number; sha256: string }
  | { ok: false; reason: "too_large"; size: number; maxBytes: number }
  | { ok: false; reason: "invalid_path"; detail: string };

export interface SharedFileRepository {
  /** Writes (or replaces) a file; refuses one over `maxBytes` (default 20 MiB) or a path that could leave HERMES_HOME. */
  put(path: string, content: Uint8Array, options?: { sessionKey?: string; maxBytes?: number }): Promise<SharedFilePut>;
  /** Marks a file removed (a tombstone, so processes that have a copy delete theirs); false when there was none. */
  remove(path: string): Promise<boolean>;
  /** A live file with its bytes; undefined when absent or removed. */
  get(path: string): Promise<SharedFile | undefined>;
  /**
   * Rows (tombstones too, with empty content) written after `version` whose path starts with one of `prefixes`,
   * oldest first: for the small files every process mirrors (skills, hook state), so the bytes come along.
   */
  changedSince(version: number, prefixes: readonly string[]): Promise<SharedFile[]>;
  /**
   * The highest version of any row (0 for none). Every version below it has committed, so a reader that asked for
   * changes since `v` after reading this may go on from it even when none of the rows under its prefixes reached it;
   * otherwise each later question would walk again every session file written since its last mirrored change.
   */
  latestVersion(): Promise<number>;
  /** The live files of one session (its attachments and saved tool output), without their bytes. */
  listForSession(sessionKey: string): Promise<SharedFileEntry[]>;
  /** The live files under a folder prefix (e.g. one skill's `skills/<name>/`), without their bytes. */
  listUnder(prefix: string): Promise<SharedFileEntry[]>;
}

// Any constant works; it only has to be the same in every process that writes the table.
const VERSION_LOCK_KEY = 0x48_45_52_4d_53_46;

const ENTRY_COLUMNS = ["path", "sha256", "size", "version", "deleted", "session_key", "updated_at"] as const;

interface EntryRow {
  path: string;
  sha256: string;
  size: number;
  version: number;
  deleted: number;
  session_key: string | null;
  updated_at: number;
}

export function createSharedFileRepository(ctx: StoreContext): SharedFileRepository {
  const { db, exec } = ctx;
  const postgres = isPostgres(db);
  const nextVersion = postgres ? sql<number>`nextval('shared_files_version')` : sql<number>`(select coalesce(max(version), 0) + 1 from shared_files)`;

  /** On PostgreSQL writers take versions one at a time, so no reader sees version N+1 before N has committed. */
  const writeVersioned = <T>(work: (tx: typeof exec) => Promise<T>): Promise<T> =>
    exec.write(async (tx) => {
      if (postgres) await tx.run(db.selectNoFrom(sql`pg_advisory_xact_lock(${sql.lit(VERSION_LOCK_KEY)})`.as("locked")));
      return work(tx);
    });

  // substr counts characters, as `[...prefix]` does; `prefix.length` counts UTF-16 units (two for an emoji).
  const prefixMatch = (prefixes: readonly string[]) =>
    sql<boolean>`(${sql.join(
      prefixes.map((prefix) => sql`substr(path, 1, ${sql.lit([...prefix].length)}) = ${prefix}`),
      sql` or `,
    )})`;

  return {
    async put(path, content, options = {}) {
      const invalid = checkSharedPath(path);
      if (invalid !== undefined) return { ok: false, reason: "invalid_path", detail: invalid };
      const maxBytes = options.maxBytes ?? DEFAULT_MAX_SHARED_FILE_BYTES;
      if (content.byteLength > maxBytes) return { ok: false, reason: "too_large", size: content.byteLength, maxBytes };
      const bytes = Buffer.from(content.buffer, content.byteOffset, content.byteLength);
      const sha256 = createHash("sha256").update(bytes).digest("hex");
      const now = ctx.now();
      const row = await writeVersioned((tx) =>
        tx.first(
          db
            .insertInto("shared_files")
            .values({ path, content: bytes, sha256, size: bytes.byteLength, version: nextVersion, deleted: 0, session_key: options.sessionKey ?? null, updated_at: now })
            .onConflict((oc) =>
              oc.column("path").doUpdateSet((eb) => ({
                content: eb.ref("excluded.content"),
                sha256: eb.ref("excluded.sha256"),
                size: eb.ref("excluded.size"),
                version: eb.ref("excluded.version"),
                deleted: 0,
                session_key: eb.ref("excluded.session_key"),
                updated_at: eb.ref("excluded.updated_at"),
              })),
            )
            .returning("version"),
        ),
      );
      if (row === undefined) throw new Error(`shared file ${path}: the upsert returned no row`);
      return { ok: true, version: row.version, sha256 };
    },

    async remove(path) {
      const now = ctx.now();
      const changed = await writeVersioned((tx) =>
        tx.run(
          db
            .updateTable("shared_files")
            .set({ content: Buffer.alloc(0), sha256: "", size: 0, deleted: 1, version: nextVersion, updated_at: now })
            .where("path", "=", path)
            .where("deleted", "=", 0),
        ),
      );
      return changed.changes > 0;
    },

    async get(path) {
      const row = await exec.first(db.selectFrom("shared_files").select([...ENTRY_COLUMNS, "content"]).where("path", "=", path).where("deleted", "=", 0));
      return row === undefined ? undefined : { ...entryOf(row), content: row.content };
    },

    async changedSince(version, prefixes) {
      if (prefixes.length === 0) return [];
      const rows = await exec.all(
        db.selectFrom("shared_files").select([...ENTRY_COLUMNS, "content"]).where("version", ">", version).where(prefixMatch(prefixes)).orderBy("version"),
      );
      return rows.map((row) => ({ ...entryOf(row), content: row.content }));
    },

    async latestVersion() {
      const row = await exec.first(db.selectFrom("shared_files").select((eb) => eb.fn.max("version").as("latest")));
      return Number(row?.latest ?? 0);
    },

    async listForSession(sessionKey) {
      const rows = await exec.all(db.selectFrom("shared_files").select(ENTRY_COLUMNS).where("session_key", "=", sessionKey).where("deleted", "=", 0).orderBy("path"));
      return rows.map(entryOf);
    },

    async listUnder(prefix) {
      const rows = await exec.all(db.selectFrom("shared_files").select(ENTRY_COLUMNS).where(prefixMatch([prefix])).where("deleted", "=", 0).orderBy("path"));
      return rows.map(entryOf);
    },
  };
}

/** Relative, `/`-separated, no empty, `.` or `..` segment, no backslash or NUL: a path that stays inside HERMES_HOME. */
export function checkSharedPath(path: string): string | undefined {
  if (path === "") return "the path is empty";
  if (path.includes("\\") || path.includes("\0")) return "the path holds a backslash or NUL";
  if (path.startsWith("/")) return "the path is absolute";
  if (path.split("/").some((segment) => segment === "" || segment === "." || segment === "..")) return "the path has an empty, . or .. segment";
  return undefined;
}

function entryOf(row: EntryRow): SharedFileEntry {
  const entry: SharedFileEntry = {
    path: row.path,
    sha256: row.sha256,
    size: Number(row.size),
    version: Number(row.version),
    deleted: Number(row.deleted) !== 0,
    updatedAt: Number(row.updated_at),
  };
  if (row.session_key !== null) entry.sessionKey = row.session_key;
  return entry;
}
