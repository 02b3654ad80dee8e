import path from "node:path";
import { silentLogger, type Logger } from "../observability/logger.js";
import { buildSkillIndex, defaultSkillParser, parseCandidate, type ParsedSkill, type SkillIndex, type SkillParser } from "./skill-index.js";
import { candidateKey, scanFingerprint, scanSkillRoots, type SkillCandidate } from "./skill-scan.js";
import { SKILL_SNAPSHOT_FILE_NAME, loadSkillSnapshot, saveSkillSnapshot, type SnapshotRecord } from "./skill-snapshot.js";

export interface SkillCatalogOptions {
  /** Skill folders, lowest priority first: a later root's skill replaces an earlier one of the same name. */
  roots: readonly string[];
  /** The root skill_manage writes to; its skills are "local", all others "official". */
  localSkillsDir?: string;
  /** Where the disk snapshot (`skills-index.json`) lives; without it only the memory layer is used. */
  cacheDir?: string;
  /** How long the in-memory index is trusted before the tree is stat-checked again. */
  recheckIntervalMs?: number;
  parser?: SkillParser;
  logger?: Logger;
  now?: () => number;
}

export interface SkillCatalogStats {
  /** Tree scans (readdir + lstat, no file contents). */
  scans: number;
  /** SKILL.md files read and parsed. */
  parses: number;
  /** index() calls answered from memory without touching the disk. */
  memoryHits: number;
  /** Disk snapshots read and accepted. */
  snapshotLoads: number;
  snapshotWrites: number;
}

interface MemoryLayer {
  fingerprint: string;
  index: SkillIndex;
  records: Map<string, SnapshotRecord>;
  checkedAt: number;
}

/**
 * The skill index behind a two-level cache. Memory holds the last index; the disk snapshot keeps every SKILL.md's
 * parsed metadata keyed by path, mtime and size, so a restart on an unchanged tree parses nothing, and after a change
 * only the added or changed files are parsed.
 */
export class SkillCatalog {
  readonly roots: readonly string[];
  readonly localSkillsDir: string | undefined;
  private readonly snapshotFile: string | undefined;
  private readonly recheckIntervalMs: number;
  private readonly parser: SkillParser;
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly counters: SkillCatalogStats = { scans: 0, parses: 0, memoryHits: 0, snapshotLoads: 0, snapshotWrites: 0 };
  private readonly reportedProblems = new Set<string>();
  private memory: MemoryLayer | undefined;
  private stale = false;
  private generation = 0;
  private pending: { generation: number; promise: Promise<SkillIndex> } | undefined;
  private diskSignature: string | undefined;

  constructor(options: SkillCatalogOptions) {
    this.roots = options.roots.map((root) => path.resolve(root));
    this.localSkillsDir = options.localSkillsDir === undefined ? undefined : path.resolve(options.localSkillsDir);
    this.snapshotFile = options.cacheDir === undefined ? undefined : path.join(path.resolve(options.cacheDir), SKILL_SNAPSHOT_FILE_NAME);
    this.recheckIntervalMs = options.recheckIntervalMs ?? 2_000;
    this.parser = options.parser ?? defaultSkillParser;
    this.logger = options.logger ?? silentLogger;
    this.now = options.now ?? Date.now;
  }

  async index(): Promise<SkillIndex> {
    const memory = this.memory;
    if (memory !== undefined && !this.stale && this.now() - memory.checkedAt < this.recheckIntervalMs) {
      this.counters.memoryHits += 1;
      return memory.index;
    }
    if (this.pending !== undefined && this.pending.generation === this.generation) return this.pending.promise;
    const generation = this.generation;
    const promise = this.refresh(generation).finally(() => {
      if (this.pending?.promise === promise) this.pending = undefined;
    });
    this.pending = { generation, promise };
    return promise;
  }

  /** Forces the next index() to look at the disk again (parsed files that did not change are still reused). */
  invalidate(): void {
    this.stale = true;
    this.generation += 1;
  }

  stats(): SkillCatalogStats {
    return { ...this.counters };
  }

  private async refresh(generation: number): Promise<SkillIndex> {
    this.counters.scans += 1;
    const scan = await scanSkillRoots(this.roots);
    const fingerprint = scanFingerprint(this.roots, scan);
    const checkedAt = this.now();
    const settle = (layer: MemoryLayer): SkillIndex => {
      // A change reported while this scan ran may not be in it, so only a refresh from the same generation clears it.
      if (generation === this.generation) {
        this.memory = layer;
        this.stale = false;
      }
      return layer.index;
    };
    if (this.memory !== undefined && this.memory.fingerprint === fingerprint) {
      return settle({ ...this.memory, checkedAt });
    }

    const known = this.memory?.records ?? (await this.loadSnapshot());
    const parsed = new Map<SkillCandidate, ParsedSkill>();
    const records = new Map<string, SnapshotRecord>();
    for (const candidate of scan.candidates) {
      const key = candidateKey(candidate);
      let record = known.get(key);
      if (record === undefined) {
        this.counters.parses += 1;
        const outcome = await parseCandidate(candidate, this.parser);
        record = { skillFile: candidate.skillFile, mtimeMs: candidate.mtimeMs, size: candidate.size, outcome };
      }
      parsed.set(candidate, record.outcome);
      records.set(key, record);
    }

    const index = buildSkillIndex(scan, parsed, this.localSkillsDir);
    this.reportProblems(index);
    await this.saveSnapshot(records);
    return settle({ fingerprint, index, records, checkedAt });
  }

  private async loadSnapshot(): Promise<Map<string, SnapshotRecord>> {
    if (this.snapshotFile === undefined) return new Map();
    const loaded = await loadSkillSnapshot(this.snapshotFile);
    if (loaded.kind === "unusable") {
      this.logger.warn("skill index snapshot ignored; rebuilding", { file: this.snapshotFile, reason: loaded.reason });
    }
    if (loaded.kind !== "loaded") return new Map();
    this.counters.snapshotLoads += 1;
    this.diskSignature = signatureOf(loaded.records);
    return loaded.records;
  }

  private async saveSnapshot(records: Map<string, SnapshotRecord>): Promise<void> {
    if (this.snapshotFile === undefined) return;
    const signature = signatureOf(records);
    if (signature === this.diskSignature) return;
    try {
      await saveSkillSnapshot(this.snapshotFile, records.values());
      this.diskSignature = signature;
      this.counters.snapshotWrites += 1;
    } catch (error) {
      // The snapshot only saves start-up time; an unwritable cache folder must not break skills.
      this.logger.warn("skill index snapshot could not be written", {
        file: this.snapshotFile,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  private reportProblems(index: SkillIndex): void {
    for (const problem of index.problems) {
      const key = `${problem.path}\u0000${problem.reason}`;
      if (this.reportedProblems.has(key)) continue;
      this.reportedProblems.add(key);
      this.logger.warn("skill skipped", { path: problem.path, reason: problem.reason });
    }
  }
}

function signatureOf(records: Map<string, SnapshotRecord>): string {
  return [...records.keys()].sort().join("\u0002");
}
