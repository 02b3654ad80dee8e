import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SkillCatalog } from "./skill-cache.js";
import { makeTempDir, toolContext, writeSkill } from "./skill-fixtures.js";
import { skillsListTool } from "./skills-list-tool.js";

let base: string;
let official: string;
let local: string;

beforeEach(async () => {
  base = await makeTempDir();
  official = path.join(base, "bundled");
  local = path.join(base, "local");
  await writeSkill(official, "summarize", {
    extraFrontmatter: "displayName: Summarize\ncategory: Communication\nversion: 1.2.0\nplatforms: [all]",
  });
  await writeSkill(official, "mac-only", { extraFrontmatter: "platforms: [macos]" });
  await writeSkill(official, "slack-only", { extraFrontmatter: "category: communication\nplatforms: [slack]" });
  await writeSkill(local, "my-notes", { description: `Notes. ${"Long text. ".repeat(60)}`, extraFrontmatter: "category: personal" });
  await fs.mkdir(path.join(local, "broken"));
});

afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

function tool() {
  return skillsListTool({ catalog: new SkillCatalog({ roots: [official, local], localSkillsDir: local }), os: "linux" });
}

describe("skills_list", () => {
  it("lists metadata for the skills available on this OS, with sources and local problems", async () => {
    const result = await tool().handler({}, toolContext());
    expect(result.isError).toBeUndefined();
    expect(result.details).toMatchObject({ count: 3, names: ["my-notes", "slack-only", "summarize"], problems: 1 });
    const lines = result.content.split("\n");
    expect(lines[0]).toBe("3 skills (load one with skill_view(name)):");
    expect(lines).toContain('- summarize "Summarize" [Communication, v1.2.0, official]: Does summarize things.');
    const notes = lines.find((line) => line.startsWith("- my-notes [personal, local]: Notes."));
    expect(notes?.length).toBeLessThan(360);
    expect(notes?.endsWith("…")).toBe(true);
    expect(result.content).toContain("- broken: the folder has no SKILL.md");
    expect(result.content).not.toContain("mac-only");
  });

  it("filters by the caller's chat platform", async () => {
    const onTelegram = await tool().handler({}, toolContext({ platform: "telegram" }));
    expect(onTelegram.details?.names).toEqual(["my-notes", "summarize"]);
    const onSlack = await tool().handler({}, toolContext({ platform: "slack" }));
    expect(onSlack.details?.names).toEqual(["my-notes", "slack-only", "summarize"]);
  });

  it("filters by category, case-insensitively, and names the categories when nothing matches", async () => {
    const result = await tool().handler({ category: "communication" }, toolContext());
    expect(result.details?.names).toEqual(["slack-only", "summarize"]);
    const none = await tool().handler({ category: "finance" }, toolContext());
    expect(none.content).toContain('No skills in category "finance". Categories: Communication, communication, personal.');
  });

  it("says so when there are no skills", async () => {
    const empty = skillsListTool({ catalog: new SkillCatalog({ roots: [path.join(base, "none")] }) });
    expect((await empty.handler({}, toolContext())).content).toBe("No skills are available.");
  });
});
