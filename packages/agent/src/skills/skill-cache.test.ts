import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Logger } from "../observability/logger.js";
import { SkillCatalog } from "./skill-cache.js";
import { MAX_SKILL_FILE_BYTES } from "./skill-scan.js";
import { SKILL_SNAPSHOT_FILE_NAME } from "./skill-snapshot.js";
import { makeTempDir, writeSkill } from "./skill-fixtures.js";

let base: string;
let official: string;
let local: string;
let cacheDir: string;

beforeEach(async () => {
  base = await makeTempDir();
  official = path.join(base, "bundled");
  local = path.join(base, "home", "skills");
  cacheDir = path.join(base, "home", "cache");
  await fs.mkdir(official, { recursive: true });
});

afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

function catalog(extra: Partial<ConstructorParameters<typeof SkillCatalog>[0]> = {}): SkillCatalog {
  return new SkillCatalog({ roots: [official, local], localSkillsDir: local, cacheDir, ...extra });
}

function recordingLogger(): { logger: Logger; warnings: Array<Record<string, unknown>> } {
  const warnings: Array<Record<string, unknown>> = [];
  const logger: Logger = {
    debug: () => {},
    info: () => {},
    warn: (message, fields) => warnings.push({ message, ...fields }),
    error: () => {},
    child: () => logger,
  };
  return { logger, warnings };
}

describe("skill index", () => {
  it("lets a later root override an earlier one and marks sources", async () => {
    await writeSkill(official, "shared", { description: "Official version." });
    await writeSkill(official, "only-official");
    await writeSkill(local, "shared", { description: "Local version." });
    await writeSkill(local, "only-local");

    const index = await catalog().index();
    expect([...index.skills.keys()]).toEqual(["only-local", "only-official", "shared"]);
    expect(index.skills.get("shared")).toMatchObject({ description: "Local version.", source: "local", dir: path.join(local, "shared") });
    expect(index.skills.get("only-official")?.source).toBe("official");
    expect(index.overrides).toEqual([{ name: "shared", hiddenDir: path.join(official, "shared"), winnerDir: path.join(local, "shared") }]);
    expect(index.problems).toEqual([]);
  });

  it("treats a missing root as empty", async () => {
    const index = await new SkillCatalog({ roots: [path.join(base, "nowhere")] }).index();
    expect(index.skills.size).toBe(0);
    expect(index.problems).toEqual([]);
  });

  it("skips invalid skills with a reason, logged once, without hiding a valid earlier one", async () => {
    await writeSkill(official, "good");
    await writeSkill(official, "shadowed");
    await fs.mkdir(path.join(official, "empty-folder"));
    await fs.mkdir(path.join(official, "bad-yaml"));
    await fs.writeFile(path.join(official, "bad-yaml", "SKILL.md"), "---\nname: [oops\n---\nbody\n");
    await writeSkill(official, "wrong-name");
    await fs.writeFile(path.join(official, "wrong-name", "SKILL.md"), "---\nname: other\ndescription: d\n---\nbody\n");
    await fs.mkdir(path.join(official, "huge"));
    await fs.writeFile(path.join(official, "huge", "SKILL.md"), "x".repeat(MAX_SKILL_FILE_BYTES + 1));
    await fs.symlink(path.join(official, "good"), path.join(official, "linked"));
    await fs.mkdir(path.join(official, ".hidden"));
    await fs.writeFile(path.join(official, "README.md"), "not a skill");
    await fs.mkdir(local, { recursive: true });
    await fs.mkdir(path.join(local, "shadowed"));
    await fs.writeFile(path.join(local, "shadowed", "SKILL.md"), "---\nname: shadowed\n---\nno description\n");

    const { logger, warnings } = recordingLogger();
    const skills = catalog({ logger, cacheDir: undefined });
    const index = await skills.index();
    expect([...index.skills.keys()]).toEqual(["good", "shadowed"]);
    expect(index.skills.get("shadowed")?.source).toBe("official");
    const reasons = Object.fromEntries(index.problems.map((p) => [p.folder, p.reason]));
    expect(reasons).toEqual({
      "bad-yaml": expect.stringMatching(/not valid YAML/),
      "empty-folder": "the folder has no SKILL.md",
      huge: expect.stringMatching(/too large/),
      linked: expect.stringMatching(/symbolic link/),
      "wrong-name": expect.stringMatching(/does not match the folder name/),
      shadowed: "the frontmatter has no description",
    });
    expect(warnings).toHaveLength(6);
    expect(warnings[0]).toMatchObject({ message: "skill skipped" });

    skills.invalidate();
    await skills.index();
    expect(warnings).toHaveLength(6);
  });
});

describe("skill cache", () => {
  it("loads an unchanged tree from the disk snapshot without parsing", async () => {
    await writeSkill(official, "alpha");
    await writeSkill(official, "beta");
    await writeSkill(local, "gamma");

    const first = catalog();
    const built = await first.index();
    expect(first.stats()).toMatchObject({ parses: 3, snapshotLoads: 0, snapshotWrites: 1 });
    await expect(fs.stat(path.join(cacheDir, SKILL_SNAPSHOT_FILE_NAME))).resolves.toBeDefined();

    const second = catalog();
    const loaded = await second.index();
    expect(second.stats()).toMatchObject({ scans: 1, parses: 0, snapshotLoads: 1, snapshotWrites: 0 });
    expect(loaded).toEqual(built);
  });

  it("parses only the changed, added skills after a restart and forgets removed ones", async () => {
    await writeSkill(official, "alpha");
    await writeSkill(official, "beta");
    await writeSkill(local, "gamma");
    await catalog().index();

    await writeSkill(official, "alpha", { description: "A longer, changed description." });
    const changed = catalog();
    expect((await changed.index()).skills.get("alpha")?.description).toBe("A longer, changed description.");
    expect(changed.stats()).toMatchObject({ parses: 1, snapshotLoads: 1, snapshotWrites: 1 });

    await writeSkill(local, "delta");
    const added = catalog();
    expect((await added.index()).skills.has("delta")).toBe(true);
    expect(added.stats().parses).toBe(1);

    await fs.rm(path.join(official, "beta"), { recursive: true });
    const removed = catalog();
    expect((await removed.index()).skills.has("beta")).toBe(false);
    expect(removed.stats()).toMatchObject({ parses: 0, snapshotWrites: 1 });

    const again = catalog();
    expect([...(await again.index()).skills.keys()]).toEqual(["alpha", "delta", "gamma"]);
    expect(again.stats()).toMatchObject({ parses: 0, snapshotWrites: 0 });
  });

  it("notices an edit that keeps the size through the modification time", async () => {
    const dir = await writeSkill(official, "alpha", { description: "Version one." });
    await catalog().index();
    await writeSkill(official, "alpha", { description: "Version two." });
    await fs.utimes(path.join(dir, "SKILL.md"), new Date("2030-01-01T00:00:00Z"), new Date("2030-01-01T00:00:00Z"));
    const restarted = catalog();
    expect((await restarted.index()).skills.get("alpha")?.description).toBe("Version two.");
    expect(restarted.stats().parses).toBe(1);
  });

  it("rebuilds when the snapshot is corrupt or tampered with", async () => {
    await writeSkill(official, "alpha");
    await catalog().index();
    const file = path.join(cacheDir, SKILL_SNAPSHOT_FILE_NAME);

    await fs.writeFile(file, "{not json");
    const { logger, warnings } = recordingLogger();
    const corrupt = catalog({ logger });
    expect((await corrupt.index()).skills.has("alpha")).toBe(true);
    expect(corrupt.stats()).toMatchObject({ parses: 1, snapshotLoads: 0, snapshotWrites: 1 });
    expect(warnings[0]).toMatchObject({ message: "skill index snapshot ignored; rebuilding", reason: "not valid JSON" });

    const snapshot = JSON.parse(await fs.readFile(file, "utf8")) as { entries: Array<{ frontmatter: { name: string } }> };
    const entry = snapshot.entries[0];
    if (entry === undefined) throw new Error("snapshot has no entry");
    entry.frontmatter.name = "Not Valid";
    await fs.writeFile(file, JSON.stringify(snapshot));
    const tampered = catalog();
    expect((await tampered.index()).skills.get("alpha")?.name).toBe("alpha");
    expect(tampered.stats().parses).toBe(1);
  });

  it("serves memory until the recheck interval passes or the cache is invalidated", async () => {
    await writeSkill(official, "alpha");
    let now = 1_000;
    const parsed: string[] = [];
    const skills = catalog({
      now: () => now,
      recheckIntervalMs: 5_000,
      parser: (text, folder) => {
        parsed.push(folder);
        return { ok: true, frontmatter: { name: folder, description: text.length > 0 ? "parsed" : "empty" } };
      },
    });
    await skills.index();
    await writeSkill(official, "beta");
    expect((await skills.index()).skills.has("beta")).toBe(false);
    expect(skills.stats()).toMatchObject({ scans: 1, memoryHits: 1 });

    now += 5_000;
    expect((await skills.index()).skills.has("beta")).toBe(true);
    expect(parsed).toEqual(["alpha", "beta"]);

    now += 1;
    await skills.index();
    expect(skills.stats().scans).toBe(2);
    skills.invalidate();
    await skills.index();
    expect(skills.stats()).toMatchObject({ scans: 3, parses: 2 });
  });

  it("shares one refresh between concurrent callers", async () => {
    await writeSkill(official, "alpha");
    const skills = catalog();
    const [a, b] = await Promise.all([skills.index(), skills.index()]);
    expect(a).toBe(b);
    expect(skills.stats()).toMatchObject({ scans: 1, parses: 1 });
  });

  it("keeps working when the snapshot cannot be written", async () => {
    await writeSkill(official, "alpha");
    await fs.mkdir(path.dirname(cacheDir), { recursive: true });
    await fs.writeFile(cacheDir, "a file where the cache folder should be");
    const { logger, warnings } = recordingLogger();
    const skills = catalog({ logger });
    expect((await skills.index()).skills.has("alpha")).toBe(true);
    expect(warnings.map((w) => w.message)).toContain("skill index snapshot could not be written");
  });
});
