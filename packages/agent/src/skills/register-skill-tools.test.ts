import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ToolRegistry } from "../tools/registry.js";
import { parseSkillDocument } from "./frontmatter.js";
import { SkillCatalog } from "./skill-cache.js";
import { makeTempDir, skillMarkdown, toolContext, writeSkill } from "./skill-fixtures.js";
import { bundledSkillsDir, createSkillTools, defaultSkillLocations, registerSkillTools } from "./register-skill-tools.js";

let base: string;

beforeEach(async () => {
  base = await makeTempDir();
});

afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

describe("registerSkillTools", () => {
  it("registers the three tools around one catalog, so a change is listed at once", async () => {
    const locations = defaultSkillLocations(path.join(base, "home"), path.join(base, "bundled"));
    await writeSkill(path.join(base, "bundled"), "bundled-one");
    const changed: string[] = [];
    const registry = new ToolRegistry();
    const registration = registerSkillTools(registry, { ...locations, onSkillChanged: (name, action) => void changed.push(`${action}:${name}`) });
    if (!registration.ok) throw new Error(registration.error);
    expect(registration.registered).toEqual(["skills_list", "skill_view", "skill_manage"]);

    const list = registry.get("skills_list");
    const manage = registry.get("skill_manage");
    if (list === undefined || manage === undefined) throw new Error("tools missing");
    expect((await list.handler({}, toolContext())).details?.names).toEqual(["bundled-one"]);
    await manage.handler({ action: "create", name: "learned", content: skillMarkdown("learned") }, toolContext());
    expect((await list.handler({}, toolContext())).details?.names).toEqual(["bundled-one", "learned"]);
    expect(changed).toEqual(["create:learned"]);
    await expect(fs.stat(path.join(base, "home", "cache", "skills-index.json"))).resolves.toBeDefined();
  });

  it("offers no skill_manage without a local folder and refuses a local folder outside the roots", () => {
    const readOnly = createSkillTools({ roots: [path.join(base, "bundled")] });
    expect(readOnly.ok && readOnly.tools.map((tool) => tool.name)).toEqual(["skills_list", "skill_view"]);
    const wrong = createSkillTools({ roots: [path.join(base, "bundled")], localSkillsDir: path.join(base, "elsewhere") });
    expect(wrong).toMatchObject({ ok: false, error: expect.stringMatching(/is not one of the skill folders/) });
    expect(createSkillTools({ roots: [] })).toMatchObject({ ok: false });
  });

  it("does not register a tool name twice", () => {
    const registry = new ToolRegistry();
    registerSkillTools(registry, { roots: [base] });
    const again = registerSkillTools(registry, { roots: [base] });
    expect(again.ok && again.registered).toEqual([]);
  });
});

describe("bundled skills", () => {
  it("all load without problems, with their supporting files", async () => {
    const catalog = new SkillCatalog({ roots: [bundledSkillsDir()] });
    const index = await catalog.index();
    expect(index.problems).toEqual([]);
    expect([...index.skills.keys()]).toEqual(expect.arrayContaining(["draft-reply", "research-checklist", "summarize-thread"]));
    for (const skill of index.skills.values()) {
      expect(skill.source).toBe("official");
      expect(skill.version).toMatch(/^\d+\.\d+\.\d+$/);
      const text = await fs.readFile(skill.skillFile, "utf8");
      const parsed = parseSkillDocument(text, skill.name);
      expect(parsed.ok && parsed.body.length).toBeGreaterThan(500);
    }

    const created = createSkillTools({ roots: [bundledSkillsDir()] });
    if (!created.ok) throw new Error(created.error);
    const view = created.tools.find((tool) => tool.name === "skill_view");
    if (view === undefined) throw new Error("skill_view missing");
    const referenced: Array<[string, string]> = [
      ["summarize-thread", "templates/summary.md"],
      ["draft-reply", "references/tone-guide.md"],
      ["research-checklist", "references/source-quality.md"],
    ];
    for (const [name, file] of referenced) {
      const tier2 = await view.handler({ name }, toolContext());
      expect(tier2.content).toContain(`- ${file}`);
      const tier3 = await view.handler({ name, file }, toolContext());
      expect(tier3.isError).toBeUndefined();
    }
  });
});
