import { promises as fs } from "node:fs";
import path from "node:path";
import { fauxAssistantMessage, registerFauxProvider, type Context, type FauxProviderRegistration, type Message } from "@mariozechner/pi-ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { conversationBuilder } from "../context/conversation-fixture.js";
import { fileTextOf, parseEntries } from "../memory/memory-entries.js";
import { MemoryStore } from "../memory/memory-store.js";
import { SkillCatalog } from "../skills/skill-cache.js";
import { makeTempDir, writeSkill } from "../skills/skill-fixtures.js";
import { BackgroundReviewer, type BackgroundReviewerOptions } from "./background-reviewer.js";
import type { ReviewReport } from "./review-run.js";
import { auditJson, recordingLogger, researchConversation, researchFramework, type LogLine } from "./test-fixtures.js";

let faux: FauxProviderRegistration;
let base: string;
let local: string;
let memoryDir: string;
let memory: MemoryStore;
let catalog: SkillCatalog;
let reports: ReviewReport[];
let lines: LogLine[];
let prompts: string[];
let memoryChanges: number;

beforeEach(async () => {
  faux = registerFauxProvider();
  base = await makeTempDir();
  local = path.join(base, "home", "skills");
  memoryDir = path.join(base, "home", "memory", "users", "telegram", "42");
  memory = new MemoryStore({ dir: memoryDir });
  catalog = new SkillCatalog({ roots: [path.join(base, "bundled"), local], localSkillsDir: local });
  reports = [];
  lines = [];
  prompts = [];
  memoryChanges = 0;
});

afterEach(async () => {
  faux.unregister();
  await fs.rm(base, { recursive: true, force: true });
});

function reviewer(options: Partial<BackgroundReviewerOptions> = {}): BackgroundReviewer {
  return new BackgroundReviewer({
    model: { model: faux.getModel() },
    memory,
    onMemoryChanged: () => void (memoryChanges += 1),
    skills: { catalog },
    frameworks: [researchFramework],
    turnNudgeInterval: 2,
    iterationNudgeInterval: 0,
    logger: recordingLogger(lines),
    now: () => Date.UTC(2026, 10, 30),
    onReviewComplete: (report) => reports.push(report),
    ...options,
  });
}

/** A scripted model reply that also keeps the prompt it was given. */
function reply(text: string) {
  return (context: Context) => {
    const last = context.messages.at(-1);
    prompts.push(typeof last?.content === "string" ? last.content : JSON.stringify(last?.content));
    return fauxAssistantMessage(text);
  };
}

async function turns(subject: BackgroundReviewer, messages: Message[], count: number): Promise<void> {
  for (let turn = 1; turn <= count; turn += 1) {
    subject.onTurnStart(turn);
    subject.afterRun({ messages, steps: 1, sessionId: "telegram:42" });
    await subject.idle();
  }
}

async function memoryEntries(): Promise<string[]> {
  return parseEntries(await fs.readFile(path.join(memoryDir, "MEMORY.md"), "utf8").catch(() => ""));
}

function chineseConversation(): Message[] {
  const talk = conversationBuilder();
  return [talk.user("请帮我查一下间歇性断食的最新研究，并注明来源。"), talk.reply("最近的研究显示间歇性断食可以适度减重（Smith 2025）。")];
}

const LESSON_ZH = "回答研究问题时，先找一个持不同意见的可靠来源。";

describe("every conversation is reviewed after the interval, in any language", () => {
  it("reviews a Chinese conversation no framework keyword matches", async () => {
    faux.setResponses([reply(auditJson({ covered: ["sources-cited"], missing: ["counter-evidence"], learnings: [LESSON_ZH] })), reply(JSON.stringify({ merge: [], drop: [] }))]);
    const subject = reviewer({ modes: ["memory"] });

    await turns(subject, chineseConversation(), 1);
    expect(reports).toHaveLength(0);
    await turns(subject, chineseConversation(), 1);

    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ mode: "memory", audited: ["research-answer-quality"], auditErrors: [] });
    expect(prompts[0]).toContain("请帮我查一下间歇性断食的最新研究");
    expect(await memoryEntries()).toEqual([expect.stringContaining(LESSON_ZH)]);
    expect(memoryChanges).toBe(1);
  });

  it("reviews an English conversation the same way", async () => {
    const lesson = "Search for a credible source that disagrees before concluding.";
    faux.setResponses([reply(auditJson({ missing: ["counter-evidence"], learnings: [lesson] })), reply(JSON.stringify({ merge: [], drop: [] }))]);
    const subject = reviewer({ modes: ["memory"] });
    await turns(subject, researchConversation(), 2);
    expect(reports.map((report) => report.audited)).toEqual([["research-answer-quality"]]);
    expect(await memoryEntries()).toEqual([expect.stringContaining(lesson)]);
  });

  it("still curates memory with no framework at all: frameworks refine a review, they never gate it", async () => {
    await fs.mkdir(memoryDir, { recursive: true });
    await fs.writeFile(path.join(memoryDir, "MEMORY.md"), fileTextOf(["Prefers metric units", "Likes answers in metric units", "Trip to Lisbon on 2025-05-01"]));
    faux.setResponses([reply(JSON.stringify({ merge: [{ entries: [1, 2], text: "Prefers answers in metric units" }], drop: [3] }))]);
    const subject = reviewer({ frameworks: [], modes: ["memory"] });

    await turns(subject, chineseConversation(), 2);

    expect(faux.state.callCount).toBe(1);
    expect(prompts[0]).toContain("1. Prefers metric units\n2. Likes answers in metric units\n3. Trip to Lisbon on 2025-05-01");
    expect(await memoryEntries()).toEqual(["Prefers answers in metric units"]);
    expect(reports[0]?.curation).toEqual({ merged: ["Prefers answers in metric units"], dropped: ["Trip to Lisbon on 2025-05-01"], refused: [] });
    expect(memoryChanges).toBe(1);
  });

  it("refuses a merge that would grow memory or one whose entry numbers do not exist, changing nothing", async () => {
    await fs.mkdir(memoryDir, { recursive: true });
    const entries = ["Uses vim", "Uses neovim"];
    await fs.writeFile(path.join(memoryDir, "MEMORY.md"), fileTextOf(entries));
    const longer = "Uses neovim as the main editor for every project, with a long list of plugins";
    faux.setResponses([reply(JSON.stringify({ merge: [{ entries: [1, 2], text: longer }, { entries: [7, 8], text: "x" }], drop: [9] }))]);
    await turns(reviewer({ frameworks: [], modes: ["memory"] }), chineseConversation(), 2);
    expect(await memoryEntries()).toEqual(entries);
    expect(reports[0]?.curation?.refused).toEqual(["merge: the merged entry is longer than the entries it replaces"]);
    expect(memoryChanges).toBe(0);
  });
});

describe("the skill review improves agent-made skills with patch", () => {
  const body = "# Dissent check\n\n## Steps\n1. Search for a source that disagrees.\n2. Answer.\n";

  function usedSkill(name: string): Message[] {
    const talk = conversationBuilder();
    return [
      talk.user("Is coffee good for you?"),
      talk.calls({ id: "view-1", name: "skill_view", args: { name } }),
      talk.result("view-1", "skill_view", body),
      talk.reply("Studies disagree; here is both sides."),
      talk.user("You forgot to give the dates of the studies."),
      talk.reply("Sorry: the 2019 and 2024 studies."),
    ];
  }

  it("patches a local skill the conversation used", async () => {
    await writeSkill(local, "dissent-check", { body });
    const patch = { old_string: "2. Answer.", new_string: "2. Give each study's year.\n3. Answer." };
    faux.setResponses([reply(JSON.stringify({ patches: [patch] }))]);
    await turns(reviewer({ frameworks: [], modes: ["skill"] }), usedSkill("dissent-check"), 2);

    expect(prompts[0]).toContain('Skill "dissent-check"');
    expect(await fs.readFile(path.join(local, "dissent-check", "SKILL.md"), "utf8")).toContain("2. Give each study's year.\n3. Answer.");
    expect(reports[0]?.skillPatches).toEqual([{ name: "dissent-check", status: "patched", patches: 1 }]);
  });

  it("never touches an official skill", async () => {
    await writeSkill(path.join(base, "bundled"), "official-check", { body });
    await turns(reviewer({ frameworks: [], modes: ["skill"] }), usedSkill("official-check"), 2);
    expect(faux.state.callCount).toBe(0);
    expect(reports[0]?.skillPatches).toEqual([]);
  });

  it("keeps the names of a shared session's senders out of skills without being told them", async () => {
    await writeSkill(local, "dissent-check", { body });
    const talk = conversationBuilder();
    const shared = [...usedSkill("dissent-check"), talk.user("[Ngozi Adeyemi] and please cite the journals"), talk.reply("Sure.")];
    faux.setResponses([reply(JSON.stringify({ patches: [{ old_string: "2. Answer.", new_string: "2. Cite journals, as Ngozi asked.\n3. Answer." }] }))]);
    await turns(reviewer({ frameworks: [], modes: ["skill"] }), shared, 2);
    expect(reports[0]?.skillPatches).toMatchObject([{ name: "dissent-check", status: "refused", error: "a patch carried personal data (name)" }]);
    expect(await fs.readFile(path.join(local, "dissent-check", "SKILL.md"), "utf8")).not.toContain("Ngozi");
  });

  it("refuses a patch that carries personal data from the conversation", async () => {
    await writeSkill(local, "dissent-check", { body });
    await fs.mkdir(memoryDir, { recursive: true });
    await fs.writeFile(path.join(memoryDir, "USER.md"), fileTextOf(["Works as a nurse at the Charité night shift"]));
    const before = await fs.readFile(path.join(local, "dissent-check", "SKILL.md"), "utf8");
    const cases = [
      { old_string: "2. Answer.", new_string: "2. Mail the answer to kim@example.org." },
      { old_string: "2. Answer.", new_string: "2. Greet Kim Lee first.\n3. Answer." },
      { old_string: "2. Answer.", new_string: "2. Remember they work as a nurse at the Charité night shift." },
    ];
    for (const patch of cases) {
      faux.setResponses([reply(JSON.stringify({ patches: [patch] }))]);
      const subject = reviewer({ frameworks: [], modes: ["skill"] });
      subject.onTurnStart(1);
      subject.onTurnStart(2);
      subject.afterRun({ messages: usedSkill("dissent-check"), steps: 1, personalData: { names: ["Kim Lee"], ids: ["42"] } });
      await subject.idle();
    }
    expect(reports.map((report) => report.skillPatches[0]?.status)).toEqual(["refused", "refused", "refused"]);
    expect(await fs.readFile(path.join(local, "dissent-check", "SKILL.md"), "utf8")).toBe(before);
  });
});
