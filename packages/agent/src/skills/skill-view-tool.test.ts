import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SkillCatalog } from "./skill-cache.js";
import { makeTempDir, skillMarkdown, toolContext, writeSkill } from "./skill-fixtures.js";
import { skillViewTool, type SkillViewOptions } from "./skill-view-tool.js";

let base: string;
let root: string;
let demoDir: string;

const body = "# Demo\n\nScripts live in ${HERMES_SKILL_DIR}/scripts. Session ${HERMES_SESSION_ID}.\nBranch: !`echo main`!\n";

beforeEach(async () => {
  base = await makeTempDir();
  root = path.join(base, "skills");
  demoDir = await writeSkill(root, "demo", {
    extraFrontmatter: "version: 0.3.0",
    body,
    files: { "references/guide.md": "# Guide\nRead me.\n", "scripts/run.sh": "echo hi\n", "assets/big.txt": "x".repeat(300) },
  });
  await writeSkill(root, "windows-only", { extraFrontmatter: "platforms: [windows]" });
  await fs.writeFile(path.join(base, "secret.txt"), "secret\n");
});

afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

function tool(options: Partial<SkillViewOptions> = {}) {
  return skillViewTool({ catalog: new SkillCatalog({ roots: [root] }), os: "linux", maxSupportFileBytes: 256, ...options });
}

describe("skill_view tier 2", () => {
  it("returns SKILL.md with variables filled in and the supporting files listed", async () => {
    const result = await tool().handler({ name: "demo" }, toolContext({ sessionId: "sess-42" }));
    expect(result.isError).toBeUndefined();
    expect(result.content).toContain(`Skill "demo" (official, v0.3.0), folder: ${demoDir}`);
    expect(result.content).toContain("---\nname: demo\n");
    expect(result.content).toContain(`Scripts live in ${demoDir}/scripts. Session sess-42.`);
    expect(result.content).toContain("Branch: !`echo main`!");
    expect(result.content).toMatch(/inline shell is disabled/);
    expect(result.content).toContain('Supporting files (load with skill_view(name="demo", file=...)):');
    expect(result.content).toContain("- references/guide.md (17 B)");
    expect(result.details).toMatchObject({ files: ["references/guide.md", "scripts/run.sh", "assets/big.txt"] });
  });

  it("runs inline shell only when the tool was created with allowInlineShell", async () => {
    const result = await tool({ allowInlineShell: true, baseEnv: { PATH: process.env.PATH } }).handler({ name: "demo" }, toolContext());
    expect(result.content).toContain("Branch: main\n");
    expect(result.details).toMatchObject({ inlineCommands: 1, inlineCommandsRun: 1 });
  });

  it("returns the stored text unchanged with raw", async () => {
    const result = await tool({ allowInlineShell: true }).handler({ name: "demo", raw: true }, toolContext());
    expect(result.content).toContain(skillMarkdown("demo", { extraFrontmatter: "version: 0.3.0", body }).trimEnd());
    expect(result.details).toMatchObject({ raw: true, inlineCommandsRun: 0 });
  });

  it("refuses unknown skills and skills for another platform", async () => {
    expect(await tool().handler({ name: "nope" }, toolContext())).toMatchObject({ isError: true, content: expect.stringMatching(/no skill named "nope"/) });
    expect(await tool().handler({ name: "windows-only" }, toolContext())).toMatchObject({
      isError: true,
      content: expect.stringMatching(/not available on this platform \(windows\)/),
    });
  });

  it("reports a skill that became invalid after it was indexed", async () => {
    const view = tool();
    await view.handler({ name: "demo" }, toolContext());
    await fs.writeFile(path.join(demoDir, "SKILL.md"), "no frontmatter any more\n");
    const result = await view.handler({ name: "demo" }, toolContext());
    expect(result).toMatchObject({ isError: true, content: expect.stringMatching(/currently invalid/) });
  });
});

describe("skill_view tier 3", () => {
  it("returns a supporting file", async () => {
    const result = await tool().handler({ name: "demo", file: "references/guide.md" }, toolContext());
    expect(result).toEqual({
      content: "File demo/references/guide.md (17 B):\n# Guide\nRead me.\n",
      details: { name: "demo", file: "references/guide.md", bytes: 17 },
    });
  });

  it("refuses traversal, symbolic links out of the skill, other folders and oversized files", async () => {
    await fs.symlink(path.join(base, "secret.txt"), path.join(demoDir, "references", "secret.md"));
    const cases: Array<[string, RegExp]> = [
      ["../../secret.txt", /"\.\."/],
      [path.join(base, "secret.txt"), /absolute/],
      ["references/secret.md", /symbolic link/],
      ["SKILL.md", /not inside one of/],
      ["assets/big.txt", /too large/],
    ];
    for (const [file, message] of cases) {
      const result = await tool().handler({ name: "demo", file }, toolContext());
      expect(result.isError).toBe(true);
      expect(result.content).toMatch(message);
      expect(result.content).not.toContain("secret\n");
    }
  });
});
