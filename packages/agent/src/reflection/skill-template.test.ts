import { describe, expect, it } from "vitest";
import { parseSkillDocument } from "../skills/frontmatter.js";
import { cleanGeneratedBody, fallbackSkillBody, generatedSkillDocument, generatedSkillName } from "./skill-template.js";
import { researchFramework } from "./test-fixtures.js";

const dimension = researchFramework.dimensions[2] ?? researchFramework.dimensions[0];
if (dimension === undefined) throw new Error("fixture has no dimensions");

describe("generatedSkillName", () => {
  it("joins framework and dimension ids", () => {
    expect(generatedSkillName("research-answer-quality", "counter-evidence")).toBe("research-answer-quality-counter-evidence");
  });

  it("cuts the framework part to stay within 64 characters", () => {
    const name = generatedSkillName("a".repeat(40), `dimension-${"b".repeat(30)}`);
    expect(name).toBe(`${"a".repeat(23)}-dimension-${"b".repeat(30)}`);
    expect(name?.length).toBe(64);
  });

  it("slugs odd characters and gives up when nothing valid remains", () => {
    expect(generatedSkillName("Research Answers", "Sources_Cited!")).toBe("research-answers-sources-cited");
    expect(generatedSkillName("---", "***")).toBeUndefined();
  });
});

describe("generatedSkillDocument", () => {
  it("writes valid frontmatter that matches the folder name, even for awkward descriptions", () => {
    const awkward = { ...dimension, description: 'Says: "both sides" — #1 rule: never skip it' };
    const document = generatedSkillDocument("research-answer-quality-counter-evidence", researchFramework, awkward, fallbackSkillBody(researchFramework, awkward));
    const parsed = parseSkillDocument(document, "research-answer-quality-counter-evidence");
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.frontmatter.description).toBe('Counter-evidence considered (Research answer quality): Says: "both sides" — #1 rule: never skip it');
    expect(parsed.frontmatter.metadata).toEqual({ generated_by: "background-reviewer", framework: "research-answer-quality", dimension: "counter-evidence" });
    expect(parsed.body).toContain("# Counter-evidence considered");
    expect(parsed.body).toContain("especially when it mentions evidence, pros and cons");
  });
});

describe("cleanGeneratedBody", () => {
  it("removes an enclosing fence and frontmatter the model wrote anyway", () => {
    const body = "# Look for dissent\n\n## Steps\n1. Search for criticism of the claim.";
    expect(cleanGeneratedBody(`\`\`\`markdown\n${body}\n\`\`\``)).toBe(body);
    expect(cleanGeneratedBody(`---\nname: x\ndescription: y\n---\n${body}`)).toBe(body);
    expect(cleanGeneratedBody("Sure.")).toBeUndefined();
  });
});
