import { SESSIONS_FOLDER_NAME, sessionFolderName, type Logger, type SkillAction, type SpilledToolOutput } from "@hermes/agent";
import type { SharedFileRepository } from "@hermes/store";
import { HomeFiles, sha256 } from "./home-files.js";

/** What every process mirrors whole: agent-made skills and the operator's hook enable state. */
export const SKILLS_FOLDER = "skills";
export const HOOK_STATE_PATH = "hooks/state.json";
export const MIRRORED_PREFIXES: readonly string[] = [`${SKILLS_FOLDER}/`, HOOK_STATE_PATH];

export type PullOutcome = { ok: true; written: string[]; removed: string[] } | { ok: false; error: string };

export interface SharedFilesSyncOptions {
  files: SharedFileRepository;
  /** This process's HERMES_HOME: a cache of the database, which holds the truth. */
  home: string;
  logger: Logger;
}

/**
 * Keeps one process's HERMES_HOME in step with the shared files of the database (HERMES_DATABASE_URL): pulls the
 * skills and hook state changed since its last pull (one indexed query when nothing changed), pushes what this process
 * changed (a skill after skill_manage, hooks/state.json after `hermes hooks enable`, a saved tool output), and restores
 * a session's files before its run. Bundled skills and hooks are files of the image and never pass through here.
 */
export class SharedFilesSync {
  readonly homeFiles: HomeFiles;
  private readonly files: SharedFileRepository;
  private readonly logger: Logger;
  private cursor = 0;
  /**
   * Each mirrored file's sha256 as this home last took it from the database or gave it: a push sends only what changed
   * here since, so a stale copy of a file another machine changed meanwhile is not sent back over its change.
   */
  private readonly known = new Map<string, string>();
  private pulledOnce = false;
  // Pulls and pushes run one after another: a caller must see every change committed before it asked, and a pull must
  // not rewrite a file between a push's read of it and its comparison with what is known.
  private turn: Promise<unknown> = Promise.resolve();
  private readonly skillListeners: Array<() => void> = [];
  /** Skills changed here whose push failed (the database was unreachable), with the change, tried again by each pull. */
  private readonly unpushed = new Map<string, SkillAction>();

  constructor(options: SharedFilesSyncOptions) {
    this.files = options.files;
    this.homeFiles = new HomeFiles(options.home);
    this.logger = options.logger;
  }

  /** Called after a pull changed a skill, e.g. to make the skill catalogs look at the disk again at once. */
  onSkillsPulled(listener: () => void): void {
    this.skillListeners.push(listener);
  }

  pull(): Promise<PullOutcome> {
    return this.inTurn(async () => {
      // First, so a pull of another machine's change to the same skill does not bury this home's own.
      await this.pushUnpushed();
      return this.pullNow();
    });
  }

  private inTurn<T>(work: () => Promise<T>): Promise<T> {
    const next = this.turn.then(work);
    this.turn = next.catch(() => undefined);
    return next;
  }

  private async pullNow(): Promise<PullOutcome> {
    const written: string[] = [];
    const removed: string[] = [];
    try {
      // Read first: every version up to it has committed, so the rows below see all the mirrored ones up to it; when
      // nothing was written since the last pull, this is the only query.
      const latest = await this.files.latestVersion();
      const rows = latest > this.cursor ? await this.files.changedSince(this.cursor, MIRRORED_PREFIXES) : [];
      for (const row of rows) {
        if (this.homeFiles.absolute(row.path) === undefined) {
          this.logger.warn("shared file skipped: its path would leave HERMES_HOME", { path: row.path });
        } else if (row.deleted) {
          if ((await this.homeFiles.read(row.path)) !== undefined) {
            await this.homeFiles.remove(row.path, SKILLS_FOLDER);
            removed.push(row.path);
          }
          this.known.delete(row.path);
        } else {
          if ((await this.homeFiles.hashOf(row.path)) !== row.sha256) {
            await this.homeFiles.write(row.path, row.content);
            written.push(row.path);
          }
          this.known.set(row.path, row.sha256);
        }
        // Advanced row by row: a failed write is tried again by the next pull, and what came before is not.
        this.cursor = row.version;
      }
      // Past the session files written since the last mirrored change, which the next question then skips.
      this.cursor = Math.max(this.cursor, latest);
      this.pulledOnce = true;
    } catch (error) {
      this.logger.warn("shared files: pull failed; this process keeps its copies until the next one", { error: asError(error) });
      return { ok: false, error: asError(error).message };
    } finally {
      if ([...written, ...removed].some((path) => path.startsWith(`${SKILLS_FOLDER}/`))) {
        for (const listener of this.skillListeners) listener();
      }
    }
    if (written.length + removed.length > 0) this.logger.debug("shared files pulled", { written: written.length, removed: removed.length });
    return { ok: true, written, removed };
  }

  /**
   * After a local change of a skill (skill_manage, reflection): the files of its folder that changed here since this
   * home last synced them go to the database, and the ones removed here are removed there. A file another machine
   * added or changed meanwhile, which this home has not pulled yet, is left as that machine made it (only a file both
   * changed goes to the last writer).
   */
  readonly onSkillChanged = (name: string, action: SkillAction): Promise<void> =>
    this.inTurn(async () => {
      try {
        await this.pushSkill(name, action);
        this.unpushed.delete(name);
      } catch (error) {
        // The tool has told the model the change is made; it is, here, and goes to the database with the next pull.
        this.unpushed.set(name, action);
        throw error;
      }
    });

  private async pushUnpushed(): Promise<void> {
    for (const [name, action] of [...this.unpushed]) {
      try {
        await this.pushSkill(name, action);
        this.unpushed.delete(name);
      } catch (error) {
        this.logger.warn("shared files: a skill changed here is still not in the database; the next pull tries again", { skill: name, error: asError(error) });
        return;
      }
    }
  }

  private async pushSkill(name: string, action: SkillAction): Promise<void> {
    const folder = `${SKILLS_FOLDER}/${name}`;
    const local = new Set(await this.homeFiles.filesUnder(folder));
    const remote = new Map((await this.files.listUnder(`${folder}/`)).map((entry) => [entry.path, entry.sha256]));
    for (const path of local) {
      const bytes = await this.homeFiles.read(path);
      if (bytes === undefined) continue;
      const hash = sha256(bytes);
      if (remote.get(path) === hash) this.known.set(path, hash);
      if (remote.get(path) === hash || (this.pulledOnce && this.known.get(path) === hash)) continue;
      const put = await this.files.put(path, bytes);
      if (!put.ok) throw new Error(`skill "${name}" (${action}): ${path} was not shared (${put.reason})`);
      this.known.set(path, hash);
    }
    // Before any pull this home cannot tell a file removed here from one added elsewhere, so the folder as it is wins.
    for (const path of remote.keys()) {
      if (local.has(path) || (this.pulledOnce && action !== "delete" && !this.known.has(path))) continue;
      await this.files.remove(path);
      this.known.delete(path);
    }
  }

  /** After `hermes hooks enable|disable` wrote the state file here. */
  async pushFile(path: string): Promise<void> {
    const bytes = await this.homeFiles.read(path);
    if (bytes === undefined) {
      await this.files.remove(path);
      return;
    }
    const put = await this.files.put(path, bytes);
    if (!put.ok) throw new Error(`${path} was not shared (${put.reason})`);
  }

  /**
   * A saved tool output goes to the database with its session, so a run on another machine can read it too. A run
   * without a session key (none of the gateway's) has no session to restore it for, so its output stays here only.
   */
  readonly onSpill = async (spill: SpilledToolOutput): Promise<void> => {
    if (spill.sessionKey === undefined) return;
    const path = this.homeFiles.sharedPathOf(spill.file);
    if (path === undefined) throw new Error("the saved output lies outside HERMES_HOME");
    const put = await this.files.put(path, Buffer.from(spill.content, "utf8"), { sessionKey: spill.sessionKey });
    if (!put.ok) throw new Error(put.reason === "too_large" ? `it is larger than the ${put.maxBytes}-byte limit of shared files` : put.detail);
  };

  /**
   * Brings a session's files (attachments, saved tool outputs) that this home lacks. They are written once under
   * names of their own, so a copy of the right size is taken to be the right one (hashing every attachment before
   * every run would read them all again). Given the run's session id, the outputs saved by the key's earlier sessions
   * are left out: the file tools let a run read only its own session's folder.
   */
  async restoreSession(sessionKey: string, sessionId?: string): Promise<{ ok: true; restored: number } | { ok: false; error: string }> {
    const ownOutputs = sessionId === undefined ? undefined : `${SESSIONS_FOLDER_NAME}/${sessionFolderName(sessionId)}/`;
    try {
      let restored = 0;
      for (const entry of await this.files.listForSession(sessionKey)) {
        if (ownOutputs !== undefined && entry.path.startsWith(`${SESSIONS_FOLDER_NAME}/`) && !entry.path.startsWith(ownOutputs)) continue;
        // In use again: the pruning of unused copies (session-copies.ts) leaves it for another window; a copy it took
        // between the two looks is restored below.
        if ((await this.homeFiles.sizeOf(entry.path)) === entry.size && (await this.homeFiles.touch(entry.path, new Date()))) continue;
        const file = await this.files.get(entry.path);
        if (file === undefined) continue;
        await this.homeFiles.write(entry.path, file.content);
        restored += 1;
      }
      return { ok: true, restored };
    } catch (error) {
      this.logger.warn("shared files: a session's files could not be restored", { sessionKey, error: asError(error) });
      return { ok: false, error: asError(error).message };
    }
  }

  /** Before a run: skills and hook state as the database has them, and the session's files. */
  async beforeRun(sessionKey: string, sessionId?: string): Promise<void> {
    await this.pull();
    await this.restoreSession(sessionKey, sessionId);
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
