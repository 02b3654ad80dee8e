import { link, mkdir, readFile, rename, unlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Logger } from "@hermes/agent";

/** The file that says which gateway runs on a HERMES_HOME. */
export const HOME_LOCK_FILE = "gateway.lock";

/** Who holds a HERMES_HOME: enough for an operator to find the process. */
export interface HomeLockHolder {
  pid: number;
  hostname: string;
  /** When it took the lock (ISO 8601). */
  since: string;
}

export interface HomeLock {
  readonly file: string;
  /** Removes the lock file, unless another process has taken it over meanwhile. */
  release(): Promise<void>;
}

export type HomeLockResult = { ok: true; lock: HomeLock } | { ok: false; file: string; holder: HomeLockHolder };

export interface HomeLockOptions {
  logger: Logger;
  pid?: number;
  hostname?: string;
  now?: () => number;
  /** Whether a process of this host is alive (`kill(pid, 0)` by default). */
  isAlive?: (pid: number) => boolean;
}

// Another process's takeover or release racing ours is retried a few times before we give up with what we saw.
const ATTEMPTS = 5;

/**
 * Takes `$HERMES_HOME/gateway.lock` for this process. The file appears complete or not at all (written aside, then
 * hard-linked into place, which fails if it exists). A lock left by a process of this host that is gone — or that
 * names this very pid, as after a container restart where the gateway is pid 1 again — is taken over.
 */
export async function takeHomeLock(home: string, options: HomeLockOptions): Promise<HomeLockResult> {
  const pid = options.pid ?? process.pid;
  const hostname = options.hostname ?? os.hostname();
  const isAlive = options.isAlive ?? processIsAlive;
  const file = path.join(home, HOME_LOCK_FILE);
  const mine: HomeLockHolder = { pid, hostname, since: new Date((options.now ?? Date.now)()).toISOString() };
  const content = `${JSON.stringify(mine)}\n`;
  await mkdir(home, { recursive: true });

  let holder: HomeLockHolder | undefined;
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    if (await placeExclusively(file, content, pid)) return { ok: true, lock: lockHandle(file, content) };
    const seen = await readHolder(file);
    if (seen === "missing") continue;
    holder = seen.holder;
    const stale = holder !== undefined && holder.hostname === hostname && (holder.pid === pid || !isAlive(holder.pid));
    // An unreadable lock is a crash while it was being replaced by hand, or tampering: it names no live process.
    if (!stale && holder !== undefined) return { ok: false, file, holder };
    if (await moveAside(file, seen.raw, pid)) options.logger.warn("took over a stale gateway lock", { file, previous: holder ?? seen.raw.slice(0, 200) });
  }
  return { ok: false, file, holder: holder ?? { pid: 0, hostname: "unknown", since: "unknown" } };
}

/** `kill(pid, 0)`: EPERM means the process exists but belongs to someone else. */
export function processIsAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function placeExclusively(file: string, content: string, pid: number): Promise<boolean> {
  const draft = `${file}.${pid}.draft`;
  await writeFile(draft, content, { mode: 0o644 });
  try {
    await link(draft, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    await unlink(draft).catch(() => undefined);
  }
}

async function readHolder(file: string): Promise<"missing" | { raw: string; holder?: HomeLockHolder }> {
  let raw: string;
  try {
    raw = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "missing";
    throw error;
  }
  return { raw, holder: parseHolder(raw) };
}

function parseHolder(raw: string): HomeLockHolder | undefined {
  try {
    const value = JSON.parse(raw) as Partial<HomeLockHolder>;
    if (typeof value.pid !== "number" || typeof value.hostname !== "string" || typeof value.since !== "string") return undefined;
    return { pid: value.pid, hostname: value.hostname, since: value.since };
  } catch {
    return undefined;
  }
}

/**
 * Renames the stale lock away, so of two processes taking it over at once only one removes it. If what was moved is
 * not the stale lock we read (someone else's fresh lock), it is put back.
 */
async function moveAside(file: string, staleRaw: string, pid: number): Promise<boolean> {
  const aside = `${file}.${pid}.stale`;
  try {
    await rename(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
  const moved = await readFile(aside, "utf8").catch(() => "");
  if (moved !== staleRaw) await link(aside, file).catch(() => undefined);
  await unlink(aside).catch(() => undefined);
  return moved === staleRaw;
}

function lockHandle(file: string, content: string): HomeLock {
  let released = false;
  return {
    file,
    release: async () => {
      if (released) return;
      released = true;
      const current = await readFile(file, "utf8").catch(() => undefined);
      if (current === content) await unlink(file).catch(() => undefined);
    },
  };
}
