import { describe, expect, it } from "vitest";
import { checkSkillName, parseSkillDocument, validateFrontmatter } from "./frontmatter.js";

const valid = [
  "---",
  "name: investment-analysis",
  "displayName: Investment analysis",
  "description: Analyse an investment.",
  "category: analysis",
  "version: 1.0.0",
  "platforms: [all]",
  "author: someone",
  "metadata:",
  "  hermes:",
  "    tags: [finance]",
  "---",
  "",
  "# Instructions",
  "Body text.",
  "",
].join("\n");

function fail(text: string, folder?: string): string {
  const result = parseSkillDocument(text, folder);
  if (result.ok) throw new Error("expected a validation failure");
  return result.error;
}

function doc(frontmatter: string, body = "# Body\n"): string {
  return `---\n${frontmatter}\n---\n${body}`;
}

describe("parseSkillDocument", () => {
  it("splits a valid SKILL.md into metadata and body, keeping unknown keys and metadata", () => {
    const result = parseSkillDocument(valid, "investment-analysis");
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.frontmatter).toMatchObject({
      name: "investment-analysis",
      displayName: "Investment analysis",
      category: "analysis",
      version: "1.0.0",
      platforms: ["all"],
      metadata: { hermes: { tags: ["finance"] } },
    });
    expect(result.body).toBe("\n# Instructions\nBody text.\n");
  });

  it("accepts CRLF line endings and a byte-order mark", () => {
    const result = parseSkillDocument("\uFEFF---\r\nname: a\r\ndescription: d\r\n---\r\nbody\r\n", "a");
    expect(result.ok && result.body).toBe("body\r\n");
  });

  it("requires the frontmatter block to open and close", () => {
    expect(fail("# No frontmatter\n")).toMatch(/must start with a YAML frontmatter/);
    expect(fail("---\nname: a\ndescription: d\n")).toMatch(/not closed/);
  });

  it("reports YAML syntax errors and non-mapping frontmatter", () => {
    expect(fail(doc("name: [unclosed"))).toMatch(/not valid YAML/);
    expect(fail(doc("name: a\nname: b\ndescription: d"))).toMatch(/not valid YAML/);
    expect(fail(doc("- just\n- a list"))).toMatch(/must be a mapping/);
  });

  it("validates the name: present, pattern, length, equal to the folder", () => {
    expect(fail(doc("description: d"))).toBe("the frontmatter has no name");
    expect(fail(doc("name: Bad_Name\ndescription: d"))).toMatch(/lowercase letters/);
    expect(fail(doc("name: -dash\ndescription: d"))).toMatch(/starting with a letter or digit/);
    expect(fail(doc(`name: ${"a".repeat(65)}\ndescription: d`))).toMatch(/longer than 64/);
    expect(parseSkillDocument(doc(`name: ${"a".repeat(64)}\ndescription: d`)).ok).toBe(true);
    expect(fail(doc("name: one\ndescription: d"), "two")).toMatch(/does not match the folder name "two"/);
    expect(fail(doc("name: 12\ndescription: d"))).toBe("name must be a string");
  });

  it("validates the description: present, non-empty, at most 1024 characters", () => {
    expect(fail(doc("name: a"))).toBe("the frontmatter has no description");
    expect(fail(doc('name: a\ndescription: ""'))).toMatch(/non-empty/);
    expect(fail(doc(`name: a\ndescription: ${"x".repeat(1025)}`))).toMatch(/longer than 1024/);
    expect(parseSkillDocument(doc(`name: a\ndescription: ${"x".repeat(1024)}`)).ok).toBe(true);
  });

  it("validates version, platforms and metadata shapes", () => {
    expect(fail(doc("name: a\ndescription: d\nversion: 1.0"))).toMatch(/version must look like 1.0.0/);
    expect(fail(doc("name: a\ndescription: d\nversion: one"))).toMatch(/version/);
    expect(parseSkillDocument(doc("name: a\ndescription: d\nversion: 2.10.3-beta.1")).ok).toBe(true);
    expect(fail(doc("name: a\ndescription: d\nplatforms: linux"))).toMatch(/platforms must be a list/);
    expect(fail(doc("name: a\ndescription: d\nplatforms: [1]"))).toMatch(/platforms/);
    expect(fail(doc("name: a\ndescription: d\nmetadata: text"))).toMatch(/metadata must be a mapping/);
    expect(fail(doc("name: a\ndescription: d\ncategory: ''"))).toMatch(/category must be/);
  });
});

describe("validateFrontmatter / checkSkillName", () => {
  it("rejects non-objects and accepts minimal metadata", () => {
    expect(validateFrontmatter(null).ok).toBe(false);
    expect(validateFrontmatter(["a"]).ok).toBe(false);
    expect(validateFrontmatter({ name: "a", description: "d" })).toEqual({ ok: true, frontmatter: { name: "a", description: "d" } });
  });

  it("accepts the documented name alphabet only", () => {
    expect(checkSkillName("my-skill_v2.1").ok).toBe(true);
    expect(checkSkillName("").ok).toBe(false);
    expect(checkSkillName("../etc").ok).toBe(false);
    expect(checkSkillName("a/b").ok).toBe(false);
    expect(checkSkillName(".hidden").ok).toBe(false);
  });
});
