import { promises as fs } from "node:fs";
import path from "node:path";
import { Value } from "@sinclair/typebox/value";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LocalSkillStore, type SkillAction } from "./local-skill-store.js";
import { SkillCatalog } from "./skill-cache.js";
import { makeTempDir, skillMarkdown, toolContext, writeSkill } from "./skill-fixtures.js";
import { skillManageTool } from "./skill-manage-tool.js";

let base: string;
let official: string;
let local: string;
let catalog: SkillCatalog;
let changes: Array<[string, SkillAction]>;

const ctx = toolContext();

beforeEach(async () => {
  base = await makeTempDir();
  official = path.join(base, "bundled");
  local = path.join(base, "home", "skills");
  await writeSkill(official, "official-one", { files: { "references/a.md": "A\n" } });
  await fs.writeFile(path.join(base, "outside.txt"), "outside\n");
  catalog = new SkillCatalog({ roots: [official, local], localSkillsDir: local, cacheDir: path.join(base, "cache") });
  changes = [];
});

afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

function tool(limits: { maxSkillBytes?: number; maxSupportFileBytes?: number } = {}) {
  const store = new LocalSkillStore({ catalog, onSkillChanged: (name, action) => void changes.push([name, action]), ...limits });
  return skillManageTool(store);
}

async function manage(args: Record<string, unknown>, limits = {}) {
  return tool(limits).handler(args as never, ctx);
}

function readLocal(...parts: string[]): Promise<string> {
  return fs.readFile(path.join(local, ...parts), "utf8");
}

describe("skill_manage schema", () => {
  it("is a never-parallel skills tool with the documented actions", () => {
    const definition = tool();
    expect(definition.name).toBe("skill_manage");
    expect(definition.concurrency).toBe("never-parallel");
    expect(Value.Check(definition.parameters, { action: "create", name: "x", content: "c" })).toBe(true);
    expect(Value.Check(definition.parameters, { action: "rename", name: "x" })).toBe(false);
  });

  it("checks the fields each action needs", async () => {
    expect(await manage({ action: "create", name: "x" })).toMatchObject({ isError: true, content: "The create action needs content." });
    expect(await manage({ action: "patch", name: "x", old_string: "a" })).toMatchObject({ content: "The patch action needs new_string." });
    expect(await manage({ action: "write_file", name: "x" })).toMatchObject({ content: "The write_file action needs file_path and file_content." });
  });
});

describe("create", () => {
  it("creates a validated skill atomically, invalidates the cache and reports the change", async () => {
    expect((await catalog.index()).skills.has("new-skill")).toBe(false);
    const result = await manage({ action: "create", name: "new-skill", content: skillMarkdown("new-skill") });
    expect(result).toMatchObject({ content: 'Created skill "new-skill".', details: { name: "new-skill", action: "create" } });
    expect(await readLocal("new-skill", "SKILL.md")).toBe(skillMarkdown("new-skill"));
    expect(await fs.readdir(path.join(local, "new-skill"))).toEqual(["SKILL.md"]);
    expect((await catalog.index()).skills.get("new-skill")?.source).toBe("local");
    expect(changes).toEqual([["new-skill", "create"]]);
  });

  it("refuses bad names, invalid or mismatched frontmatter, empty bodies and oversized content", async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ name: "../escape", content: skillMarkdown("escape") }, /name "..\/escape" is invalid/],
      [{ name: "a".repeat(65), content: "x" }, /longer than 64/],
      [{ name: "nofm", content: "# just markdown" }, /must start with a YAML frontmatter/],
      [{ name: "mismatch", content: skillMarkdown("other") }, /does not match the folder name "mismatch"/],
      [{ name: "empty-body", content: skillMarkdown("empty-body", { body: "\n" }) }, /body after the frontmatter is empty/],
      [{ name: "big", content: skillMarkdown("big", { body: "x".repeat(600) }) }, /too large/],
    ];
    for (const [args, message] of cases) {
      const result = await manage({ action: "create", ...args }, { maxSkillBytes: 500 });
      expect(result.isError).toBe(true);
      expect(result.content).toMatch(message);
    }
    await expect(fs.readdir(local)).rejects.toThrow();
    expect(changes).toEqual([]);
  });

  it("refuses a name already used by an official or local skill, or by a leftover folder", async () => {
    expect(await manage({ action: "create", name: "official-one", content: skillMarkdown("official-one") })).toMatchObject({
      isError: true,
      content: expect.stringMatching(/already exists \(an official skill\)\. Pick another name/),
    });
    await manage({ action: "create", name: "mine", content: skillMarkdown("mine") });
    expect(await manage({ action: "create", name: "mine", content: skillMarkdown("mine") })).toMatchObject({
      content: expect.stringMatching(/one of your skills/),
    });
    await fs.mkdir(path.join(local, "leftover"));
    expect(await manage({ action: "create", name: "leftover", content: skillMarkdown("leftover") })).toMatchObject({
      content: expect.stringMatching(/not a valid skill; edit or delete it/),
    });
  });
});

describe("edit, patch and delete", () => {
  beforeEach(async () => {
    await writeSkill(local, "mine", { body: "# Mine\n\n## Steps\n1. Open the report.\n   - Check totals.\n2. Send it.\n" });
  });

  it("edit replaces SKILL.md after validating it", async () => {
    const content = skillMarkdown("mine", { description: "Edited.", body: "New body.\n" });
    expect(await manage({ action: "edit", name: "mine", content })).toMatchObject({ content: "Replaced mine/SKILL.md." });
    expect(await readLocal("mine", "SKILL.md")).toBe(content);
    expect((await catalog.index()).skills.get("mine")?.description).toBe("Edited.");
    expect(await manage({ action: "edit", name: "mine", content: "broken" })).toMatchObject({ isError: true });
    expect(await readLocal("mine", "SKILL.md")).toBe(content);
    expect(changes).toEqual([["mine", "edit"]]);
  });

  it("edit can repair a local skill that does not load", async () => {
    await fs.writeFile(path.join(local, "mine", "SKILL.md"), "not a skill");
    expect((await catalog.index()).skills.has("mine")).toBe(false);
    await manage({ action: "edit", name: "mine", content: skillMarkdown("mine") });
    expect((await catalog.index()).skills.has("mine")).toBe(true);
  });

  it("patch applies an exact match", async () => {
    const result = await manage({ action: "patch", name: "mine", old_string: "2. Send it.", new_string: "2. Email it to the team." });
    expect(result).toMatchObject({ content: "Patched mine/SKILL.md.", details: { strategy: "exact" } });
    expect(await readLocal("mine", "SKILL.md")).toContain("2. Email it to the team.\n");
    expect(changes).toEqual([["mine", "patch"]]);
  });

  it("patch falls back to a whitespace-normalised match", async () => {
    const result = await manage({ action: "patch", name: "mine", old_string: "1. Open the report.\n- Check   totals.", new_string: "1. Open the monthly report." });
    expect(result).toMatchObject({ content: expect.stringMatching(/ignoring whitespace differences/), details: { strategy: "whitespace" } });
    expect(await readLocal("mine", "SKILL.md")).toContain("## Steps\n1. Open the monthly report.\n2. Send it.\n");
  });

  it("patch falls back to a block-anchored match", async () => {
    const oldBlock = "## Steps\n1. Open the reports.\n- Check the totals.\n2. Send it.";
    const result = await manage({ action: "patch", name: "mine", old_string: oldBlock, new_string: "## Steps\n1. Send the report." });
    expect(result).toMatchObject({ details: { strategy: "block-anchored" } });
    expect(await readLocal("mine", "SKILL.md")).toMatch(/# Mine\n\n## Steps\n1\. Send the report\.\n$/);
  });

  it("patch refuses ambiguous matches, missing text and results that would be invalid", async () => {
    await manage({ action: "edit", name: "mine", content: skillMarkdown("mine", { body: "step\nstep\n" }) });
    changes = [];
    expect(await manage({ action: "patch", name: "mine", old_string: "step", new_string: "x" })).toMatchObject({
      isError: true,
      content: expect.stringMatching(/matches 2 places/),
    });
    expect(await manage({ action: "patch", name: "mine", old_string: "absent", new_string: "x" })).toMatchObject({
      content: expect.stringMatching(/was not found/),
    });
    expect(await manage({ action: "patch", name: "mine", old_string: "name: mine", new_string: "name: renamed" })).toMatchObject({
      content: expect.stringMatching(/result would be invalid: .*does not match the folder name/),
    });
    expect(await manage({ action: "patch", name: "mine", old_string: "x", new_string: "x" })).toMatchObject({ isError: true });
    expect(changes).toEqual([]);
  });

  it("delete removes the local folder", async () => {
    expect(await manage({ action: "delete", name: "mine" })).toMatchObject({ content: 'Deleted skill "mine".' });
    await expect(fs.stat(path.join(local, "mine"))).rejects.toThrow();
    expect((await catalog.index()).skills.has("mine")).toBe(false);
    expect(changes).toEqual([["mine", "delete"]]);
  });

  it("delete says when an official skill of the same name becomes visible again", async () => {
    await writeSkill(local, "official-one", { description: "Local override." });
    const result = await manage({ action: "delete", name: "official-one" });
    expect(result.content).toMatch(/official skill of the same name is visible again/);
    expect((await catalog.index()).skills.get("official-one")?.source).toBe("official");
  });
});

describe("supporting files", () => {
  beforeEach(async () => {
    await writeSkill(local, "mine");
  });

  it("write_file creates folders and writes atomically; remove_file deletes", async () => {
    const written = await manage({ action: "write_file", name: "mine", file_path: "references/deep/notes.md", file_content: "# Notes\n" });
    expect(written).toMatchObject({ content: "Wrote mine/references/deep/notes.md (8 B).", details: { file: "references/deep/notes.md" } });
    expect(await readLocal("mine", "references", "deep", "notes.md")).toBe("# Notes\n");
    await manage({ action: "write_file", name: "mine", file_path: "references/deep/notes.md", file_content: "# Notes v2\n" });
    expect(await readLocal("mine", "references", "deep", "notes.md")).toBe("# Notes v2\n");

    expect(await manage({ action: "remove_file", name: "mine", file_path: "references/deep/notes.md" })).toMatchObject({
      content: "Removed mine/references/deep/notes.md.",
    });
    await expect(fs.stat(path.join(local, "mine", "references", "deep", "notes.md"))).rejects.toThrow();
    expect(changes).toEqual([
      ["mine", "write_file"],
      ["mine", "write_file"],
      ["mine", "remove_file"],
    ]);
  });

  it("refuses traversal, other folders, symbolic links out, oversized and binary content", async () => {
    await fs.symlink(base, path.join(local, "mine", "assets"));
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ file_path: "../../../outside.txt", file_content: "x" }, /"\.\."/],
      [{ file_path: path.join(base, "outside.txt"), file_content: "x" }, /absolute/],
      [{ file_path: "SKILL.md", file_content: "x" }, /not inside one of/],
      [{ file_path: "assets/outside.txt", file_content: "x" }, /symbolic link/],
      [{ file_path: "templates/big.md", file_content: "x".repeat(101) }, /too large/],
      [{ file_path: "templates/bin.dat", file_content: "a\u0000b" }, /NUL/],
    ];
    for (const [args, message] of cases) {
      const result = await manage({ action: "write_file", name: "mine", ...args }, { maxSupportFileBytes: 100 });
      expect(result.isError).toBe(true);
      expect(result.content).toMatch(message);
    }
    expect(await manage({ action: "remove_file", name: "mine", file_path: "assets/outside.txt" })).toMatchObject({ isError: true });
    expect(await manage({ action: "remove_file", name: "mine", file_path: "references/none.md" })).toMatchObject({
      content: "File not found: mine/references/none.md.",
    });
    expect(await fs.readFile(path.join(base, "outside.txt"), "utf8")).toBe("outside\n");
    expect(changes).toEqual([]);
  });
});

describe("official skills", () => {
  it("refuses every change to an official skill", async () => {
    const attempts: Array<Record<string, unknown>> = [
      { action: "edit", content: skillMarkdown("official-one") },
      { action: "patch", old_string: "Follow", new_string: "Ignore" },
      { action: "delete" },
      { action: "write_file", file_path: "references/b.md", file_content: "B" },
      { action: "remove_file", file_path: "references/a.md" },
    ];
    for (const attempt of attempts) {
      const result = await manage({ name: "official-one", ...attempt });
      expect(result).toMatchObject({ isError: true, content: expect.stringMatching(/"official-one" is an official skill and cannot be changed/) });
    }
    expect(await fs.readFile(path.join(official, "official-one", "references", "a.md"), "utf8")).toBe("A\n");
    expect(changes).toEqual([]);
  });

  it("says when a skill does not exist at all", async () => {
    expect(await manage({ action: "delete", name: "ghost" })).toMatchObject({ content: expect.stringMatching(/no skill named "ghost"/) });
  });

  it("keeps going when the change listener throws", async () => {
    const store = new LocalSkillStore({
      catalog,
      onSkillChanged: () => {
        throw new Error("listener bug");
      },
    });
    const result = await skillManageTool(store).handler({ action: "create", name: "ok", content: skillMarkdown("ok") } as never, ctx);
    expect(result.isError).toBeUndefined();
  });
});

describe("personal data", () => {
  const caller = { ...ctx, caller: { platform: "telegram", userId: "777000111", chatId: "-100555" } };
  const known = { names: ["Dana Okafor"], memoryEntries: ["Dana is training for the Berlin marathon in September"] };

  function guarded() {
    const store = new LocalSkillStore({ catalog, onSkillChanged: (name, action) => void changes.push([name, action]) });
    return skillManageTool(store, { personalData: () => known });
  }

  it.each([
    ["an e-mail address", { action: "create", name: "mail", content: skillMarkdown("mail", { body: "# Mail\n\nCC dana@example.org.\n" }) }],
    ["a phone number", { action: "create", name: "call", content: skillMarkdown("call", { body: "# Call\n\nDial +1 415 555 0100.\n" }) }],
    ["the caller's id", { action: "create", name: "ids", content: skillMarkdown("ids", { body: "# Ids\n\nOnly for user 777000111.\n" }) }],
    ["a sender's name", { action: "create", name: "coach", content: skillMarkdown("coach", { body: "# Coach\n\nAsk Okafor about pace.\n" }) }],
    [
      "a memory entry",
      { action: "create", name: "plan", content: skillMarkdown("plan", { body: "# Plan\n\nThe user is training for the Berlin marathon in September.\n" }) },
    ],
    ["a patch", { action: "patch", name: "mine", old_string: "2. Send it.", new_string: "2. Send it to dana@example.org." }],
    ["a support file", { action: "write_file", name: "mine", file_path: "references/who.md", file_content: "Dana Okafor\n" }],
  ])("refuses %s with an error that asks to generalise, writing nothing", async (_label, args) => {
    await writeSkill(local, "mine", { body: "# Mine\n\n1. Draft it.\n2. Send it.\n" });
    const result = await guarded().handler(args as never, caller);
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^Refused: the skill contains .*Generalise it/s);
    expect(changes).toEqual([]);
    expect(await readLocal("mine", "SKILL.md")).toContain("2. Send it.\n");
  });

  it("accepts a general skill that names no one", async () => {
    const content = skillMarkdown("marathon-plan", { body: "# Marathon plan\n\n1. Ask for the race date.\n2. Build a plan with <name>'s weekly mileage.\n" });
    const result = await guarded().handler({ action: "create", name: "marathon-plan", content } as never, caller);
    expect(result.isError).toBeUndefined();
    expect(changes).toEqual([["marathon-plan", "create"]]);
  });

  it("also refuses what the run's caller knows, read at the time of the call", async () => {
    const entries: string[] = [];
    const runCaller = { ...caller.caller, personalData: async () => ({ names: ["Ingrid Solberg"], memoryEntries: [...entries] }) };
    const call = (name: string, body: string) =>
      guarded().handler({ action: "create", name, content: skillMarkdown(name, { body }) } as never, { ...ctx, caller: runCaller });

    expect(await call("greet", "# Greet\n\nSay hello to Ingrid first.\n")).toMatchObject({ isError: true, content: expect.stringMatching(/name of a person/) });
    // Saved to memory during the run, after the run started.
    entries.push("Keeps her bees on the roof of the Oslo office");
    const copied = await call("bees", "# Bees\n\nThe user keeps her bees on the roof of the Oslo office.\n");
    expect(copied).toMatchObject({ isError: true, content: expect.stringMatching(/what memory keeps/) });
    // What the tool was configured with still counts next to the run's own.
    expect(await call("coach", "# Coach\n\nAsk Okafor about pace.\n")).toMatchObject({ isError: true });
    expect(changes).toEqual([]);
    expect((await call("beekeeping", "# Beekeeping\n\n1. Ask where the hives are.\n")).isError).toBeUndefined();
    expect(changes).toEqual([["beekeeping", "create"]]);
  });
});
