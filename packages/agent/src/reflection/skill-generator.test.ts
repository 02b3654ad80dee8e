import { promises as fs } from "node:fs";
import path from "node:path";
import { fauxAssistantMessage, registerFauxProvider, type FauxProviderRegistration } from "@mariozechner/pi-ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SkillAction } from "../skills/local-skill-store.js";
import { SkillCatalog } from "../skills/skill-cache.js";
import { makeTempDir, writeSkill } from "../skills/skill-fixtures.js";
import { SkillGenerator } from "./skill-generator.js";
import { auditResult, researchFramework } from "./test-fixtures.js";

let faux: FauxProviderRegistration;
let base: string;
let official: string;
let local: string;
let catalog: SkillCatalog;
let changes: Array<[string, SkillAction]>;

const MODEL_BODY = "# Look for dissent\n\n## When to use\nResearch questions.\n\n## Steps\n1. Search for criticism of the main claim.";

beforeEach(async () => {
  faux = registerFauxProvider();
  base = await makeTempDir();
  official = path.join(base, "bundled");
  local = path.join(base, "home", "skills");
  await writeSkill(official, "research-answer-quality-sources-cited");
  catalog = new SkillCatalog({ roots: [official, local], localSkillsDir: local });
  changes = [];
});

afterEach(async () => {
  faux.unregister();
  await fs.rm(base, { recursive: true, force: true });
});

function generator(options: { maxSkillsPerAudit?: number; catalog?: SkillCatalog } = {}): SkillGenerator {
  return new SkillGenerator({
    model: { model: faux.getModel() },
    catalog: options.catalog ?? catalog,
    onSkillChanged: (name, action) => void changes.push([name, action]),
    maxSkillsPerAudit: options.maxSkillsPerAudit,
  });
}

function readLocalSkill(name: string): Promise<string> {
  return fs.readFile(path.join(local, name, "SKILL.md"), "utf8");
}

describe("SkillGenerator", () => {
  it("writes a local skill from the model's body, skips names taken in any root and reports the change", async () => {
    faux.setResponses([fauxAssistantMessage(MODEL_BODY)]);
    const audit = auditResult(researchFramework, { missing: ["sources-cited", "counter-evidence"] });

    const outcomes = await generator().generate(audit, researchFramework);

    expect(outcomes).toEqual([
      { dimensionId: "sources-cited", name: "research-answer-quality-sources-cited", status: "exists" },
      { dimensionId: "counter-evidence", name: "research-answer-quality-counter-evidence", status: "created", source: "model" },
    ]);
    expect(faux.state.callCount).toBe(1);
    const written = await readLocalSkill("research-answer-quality-counter-evidence");
    expect(written).toMatch(/^---\nname: research-answer-quality-counter-evidence\n/);
    expect(written).toContain(MODEL_BODY);
    expect((await catalog.index()).skills.get("research-answer-quality-counter-evidence")?.source).toBe("local");
    expect(changes).toEqual([["research-answer-quality-counter-evidence", "create"]]);
  });

  it("does not write or ask again when the same audit comes back", async () => {
    faux.setResponses([fauxAssistantMessage(MODEL_BODY)]);
    const audit = auditResult(researchFramework, { missing: ["counter-evidence"] });
    await generator().generate(audit, researchFramework);
    const first = await readLocalSkill("research-answer-quality-counter-evidence");

    const again = await generator().generate(audit, researchFramework);

    expect(again).toEqual([{ dimensionId: "counter-evidence", name: "research-answer-quality-counter-evidence", status: "exists" }]);
    expect(faux.state.callCount).toBe(1);
    expect(await readLocalSkill("research-answer-quality-counter-evidence")).toBe(first);
    expect(await fs.readdir(local)).toEqual(["research-answer-quality-counter-evidence"]);
  });

  it("falls back to the template when the call fails, the reply is unusable or holds a secret", async () => {
    faux.setResponses([
      fauxAssistantMessage([], { stopReason: "error", errorMessage: "overloaded" }),
      fauxAssistantMessage("ok"),
      fauxAssistantMessage(`${MODEL_BODY}\nUse api_key=sk-live-0123456789abcdef0123 for the search.`),
    ]);
    const audit = auditResult(researchFramework, { missing: ["recency-checked", "counter-evidence"] });
    const other = { ...researchFramework, id: "other-framework" };

    const outcomes = [
      ...(await generator().generate(audit, researchFramework)),
      ...(await generator({ maxSkillsPerAudit: 1 }).generate(audit, other)),
    ];

    expect(outcomes.map((outcome) => [outcome.name, outcome.status, outcome.source])).toEqual([
      ["research-answer-quality-recency-checked", "created", "template"],
      ["research-answer-quality-counter-evidence", "created", "template"],
      ["other-framework-recency-checked", "created", "template"],
      ["other-framework-counter-evidence", "deferred", undefined],
    ]);
    const templated = await readLocalSkill("other-framework-recency-checked");
    expect(templated).toContain("# Recency checked");
    expect(templated).toContain("Time-sensitive facts carry their dates.");
    expect(templated).not.toContain("sk-live");
  });

  it.each([
    ["an e-mail address", `${MODEL_BODY}\n2. Send the draft to priya@example.com.`],
    ["a phone number", `${MODEL_BODY}\n2. Call +49 30 1234 5678 to confirm.`],
    ["a sender's name", `${MODEL_BODY}\n2. Ask Priya Raman which sources she trusts.`],
    ["a platform user id", `${MODEL_BODY}\n2. Only do this for user 5550001234abc.`],
    ["a memory entry", `${MODEL_BODY}\n2. Keep in mind the user is writing a thesis on sleep and fasting.`],
  ])("uses the template instead of a body that carries %s", async (_label, body) => {
    faux.setResponses([fauxAssistantMessage(body)]);
    const audit = auditResult(researchFramework, { missing: ["counter-evidence"] });
    const personalData = { names: ["Priya Raman"], ids: ["5550001234abc"], memoryEntries: ["Writing a thesis on sleep and fasting at TU Delft"] };
    const outcomes = await generator().generate(audit, researchFramework, { personalData });
    expect(outcomes).toEqual([{ dimensionId: "counter-evidence", name: "research-answer-quality-counter-evidence", status: "created", source: "template" }]);
    const written = await readLocalSkill("research-answer-quality-counter-evidence");
    expect(written).not.toContain("Priya");
    expect(written).not.toContain("thesis");
  });

  it("keeps the model's body when it names no one from the conversation", async () => {
    faux.setResponses([fauxAssistantMessage(`${MODEL_BODY}\n2. Note when sources disagree.`)]);
    const audit = auditResult(researchFramework, { missing: ["counter-evidence"] });
    const outcomes = await generator().generate(audit, researchFramework, { personalData: { names: ["Priya Raman"], memoryEntries: ["Writing a thesis"] } });
    expect(outcomes[0]).toMatchObject({ status: "created", source: "model" });
  });

  it("reports a failure value when no local skills folder is configured", async () => {
    faux.setResponses([fauxAssistantMessage(MODEL_BODY)]);
    const readOnly = new SkillCatalog({ roots: [official] });
    const outcomes = await generator({ catalog: readOnly }).generate(auditResult(researchFramework, { missing: ["counter-evidence"] }), researchFramework);
    expect(outcomes).toEqual([
      { dimensionId: "counter-evidence", name: "research-answer-quality-counter-evidence", status: "failed", error: "No folder for new skills is configured." },
    ]);
  });
});
