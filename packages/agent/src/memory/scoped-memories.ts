import path from "node:path";
import { silentLogger, type Logger } from "../observability/logger.js";
import { fileMemoryStorage } from "./file-memory-documents.js";
import { memoryDocumentKey, type MemoryStorage } from "./memory-documents.js";
import type { MemoryManager } from "./memory-manager.js";
import type { MemoryScope } from "./memory-scope.js";
import { MEMORY_FILE_NAMES, MemoryStore, type MemoryFileState, type MemoryTarget } from "./memory-store.js";

export interface ScopedMemoriesOptions {
  /** Makes and initializes the manager of one scope (its built-in files, the external provider with its scope id). */
  create: (scope: MemoryScope) => Promise<MemoryManager>;
  /** Most scopes kept at once; the least recently used one is shut down beyond it. Default 500. */
  limit?: number;
  logger?: Logger;
  /** Where the scopes' files are kept, for `forget`; default the folders on disk. */
  storage?: MemoryStorage;
}

export interface MemoryScopeContents {
  memory: MemoryFileState | undefined;
  user: MemoryFileState | undefined;
}

interface Cached {
  scope: MemoryScope;
  manager: Promise<MemoryManager>;
  /** Conversations that already have this scope's snapshot (the most recent ones). */
  sessions: string[];
}

const DEFAULT_LIMIT = 500;
const SESSIONS_REMEMBERED = 32;
/** Most scopes outside the cache that one forget sets up (each only for its provider's forget, within its timeout). */
const MAX_UNCACHED_FORGOTTEN = 200;

/**
 * One MemoryManager per memory scope, so each scope has its own frozen prompt snapshot and its own dirty flag: one
 * person's new session never changes another person's cached prompt prefix, and nothing of one scope reaches another.
 */
export class ScopedMemories {
  private readonly cached = new Map<string, Cached>();
  private readonly limit: number;
  private readonly logger: Logger;

  constructor(private readonly options: ScopedMemoriesOptions) {
    this.limit = options.limit ?? DEFAULT_LIMIT;
    this.logger = options.logger ?? silentLogger;
  }

  /**
   * The scope's manager. Given the conversation it serves, the scope's snapshot is re-taken the first time it meets
   * that conversation (a new session, or a person joining a shared one), so it shows what other processes and scopes
   * wrote meanwhile; within a conversation it stays frozen.
   */
  async managerFor(scope: MemoryScope, sessionId?: string): Promise<MemoryManager> {
    const entry = this.entryFor(scope);
    const manager = await entry.manager;
    if (sessionId !== undefined && !entry.sessions.includes(sessionId)) {
      entry.sessions.push(sessionId);
      if (entry.sessions.length > SESSIONS_REMEMBERED) entry.sessions.shift();
      await manager.refreshSnapshot();
    }
    return manager;
  }

  /** The managers of the cached scopes that took part in the conversation `sessionId` (those its runs used). */
  async managersOf(sessionId: string): Promise<MemoryManager[]> {
    return this.settled([...this.cached.values()].filter((entry) => entry.sessions.includes(sessionId)));
  }

  /**
   * The conversation `sessionId` ended (`/new`, `/reset`): the scopes that took part in it are told (`onSessionEnd`),
   * and so is `endedBy`, the scope of whoever ended it (another process may have run the conversation).
   */
  async endSession(sessionId: string, endedBy?: MemoryScope): Promise<void> {
    const took = [...this.cached.values()].filter((entry) => entry.sessions.includes(sessionId));
    for (const entry of took) entry.sessions = entry.sessions.filter((id) => id !== sessionId);
    const managers = new Set(await this.settled(endedBy && !took.some((entry) => entry.scope.id === endedBy.id) ? [...took, this.entryFor(endedBy)] : took));
    await Promise.all([...managers].map((manager) => manager.onSessionEnd(sessionId)));
  }

  /** The entries' managers; one whose set-up failed is left out (it was logged and will be set up again). */
  private async settled(entries: readonly Cached[]): Promise<MemoryManager[]> {
    const outcomes = await Promise.allSettled(entries.map((entry) => entry.manager));
    return outcomes.flatMap((outcome, index) => {
      if (outcome.status === "fulfilled") return [outcome.value];
      this.logger.warn("memory scope could not be set up", { scope: entries[index]?.scope.id, error: outcome.reason });
      return [];
    });
  }

  private entryFor(scope: MemoryScope): Cached {
    const hit = this.cached.get(scope.id);
    if (hit) {
      // Recently used scopes are kept longest.
      this.cached.delete(scope.id);
      this.cached.set(scope.id, hit);
      return hit;
    }
    const entry: Cached = { scope, manager: this.options.create(scope), sessions: [] };
    this.cached.set(scope.id, entry);
    // Only this entry: after an eviction a newer one may hold the id, and it must stay (and be shut down later).
    entry.manager.catch(() => this.cached.get(scope.id) === entry && this.cached.delete(scope.id));
    this.evictOverLimit();
    return entry;
  }

  /**
   * Erases the person's files of the scope and what the external provider keeps for it, then re-takes the snapshot
   * of every cached scope that showed those files, so the erased entries leave their prompts at once. `alsoScopes`
   * are the person's other scopes known from elsewhere (the shared chats the store saw them in, which this process
   * may never have set up); one that is not the same person's is ignored. True when a file was there to erase.
   */
  async forget(scope: MemoryScope, alsoScopes: readonly MemoryScope[] = []): Promise<boolean> {
    // A scope that owns nothing (a group's pair in chat mode) is not one person's to erase, nor its provider's entries.
    if (scope.ownDirs.length === 0) return false;
    // The person's provider entries live under each of their scopes (their own, and one per shared chat they were
    // in): all of those are forgotten, not only the one /forget was sent from.
    const targets = new Map<string, MemoryScope>([[scope.id, scope]]);
    if (scope.ownScope) targets.set(scope.ownScope.id, scope.ownScope);
    for (const entry of [...this.cached.values()]) if (sameOwner(entry.scope, scope)) targets.set(entry.scope.id, entry.scope);
    for (const target of targets.values()) await (await this.managerFor(target)).forgetExternal();
    const uncached = alsoScopes.filter((other) => sameOwner(other, scope) && !targets.has(other.id) && !this.cached.has(other.id));
    await this.forgetUncached([...new Map(uncached.map((other) => [other.id, other])).values()].slice(0, MAX_UNCACHED_FORGOTTEN));
    const existed = await forgetMemoryFiles(scope, this.options.storage);
    const erased = new Set(scope.ownDirs);
    await Promise.all(
      [...this.cached.values()]
        .filter((entry) => erased.has(entry.scope.memoryDir) || erased.has(entry.scope.userDir))
        .map(async (entry) => (await entry.manager).refreshSnapshot()),
    );
    return existed;
  }

  /** Sets up each scope's manager only to have its provider forget, then shuts it down (it is not kept). */
  private async forgetUncached(scopes: readonly MemoryScope[]): Promise<void> {
    for (const scope of scopes) {
      let manager: MemoryManager;
      try {
        manager = await this.options.create(scope);
      } catch (error) {
        this.logger.warn("memory scope could not be set up to forget it", { scope: scope.id, error });
        continue;
      }
      try {
        await manager.forgetExternal();
      } finally {
        await this.shutdownOne({ scope, manager: Promise.resolve(manager), sessions: [] });
      }
    }
  }

  async shutdown(): Promise<void> {
    const all = [...this.cached.values()];
    this.cached.clear();
    await Promise.all(all.map((entry) => this.shutdownOne(entry)));
  }

  private evictOverLimit(): void {
    while (this.cached.size > this.limit) {
      const oldest = this.cached.keys().next().value;
      if (oldest === undefined) return;
      const entry = this.cached.get(oldest);
      this.cached.delete(oldest);
      if (entry) void this.shutdownOne(entry);
    }
  }

  private async shutdownOne(entry: Cached): Promise<void> {
    try {
      await (await entry.manager).shutdown();
    } catch (error) {
      this.logger.warn("memory scope could not be shut down", { scope: entry.scope.id, error });
    }
  }
}

/** Both scopes are views of the same person's own folders (never true of a scope that owns nothing). */
function sameOwner(a: MemoryScope, b: MemoryScope): boolean {
  return a.ownDirs.length > 0 && a.ownDirs.length === b.ownDirs.length && a.ownDirs.every((dir) => b.ownDirs.includes(dir));
}

/** The scope's two files as stored (undefined when one cannot be read); `storage` as the scope's MemoryStore has it. */
export async function readMemoryScope(scope: MemoryScope, storage?: MemoryStorage): Promise<MemoryScopeContents> {
  const store = new MemoryStore({ dir: scope.memoryDir, userDir: scope.userDir, storage });
  const [memory, user] = await Promise.all((["memory", "user"] as const).map((target) => store.read(target)));
  return { memory: memory?.ok ? memory.state : undefined, user: user?.ok ? user.state : undefined };
}

/** Deletes MEMORY.md and USER.md of the folders that are the person's own; true when a file was there. */
export async function forgetMemoryFiles(scope: MemoryScope, storage?: MemoryStorage): Promise<boolean> {
  const files = scope.ownDirs.flatMap((dir) => (Object.keys(MEMORY_FILE_NAMES) as MemoryTarget[]).map((target) => path.resolve(dir, MEMORY_FILE_NAMES[target])));
  const existed = await Promise.all(
    files.map((file) => {
      const { root, documents } = storage ?? fileMemoryStorage(path.parse(file).root);
      return documents.remove(memoryDocumentKey(root, file));
    }),
  );
  return existed.some(Boolean);
}
