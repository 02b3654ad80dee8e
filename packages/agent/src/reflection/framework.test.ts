import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bundledFrameworksDir, loadFrameworks, parseFramework } from "./framework.js";
import { recordingLogger, researchFramework, type LogLine } from "./test-fixtures.js";

let dir: string;
let lines: LogLine[];

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "hermes-"));
  lines = [];
});

afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function writeJson(name: string, value: unknown): Promise<string> {
  const file = path.join(dir, name);
  await fs.writeFile(file, typeof value === "string" ? value : JSON.stringify(value));
  return file;
}

describe("parseFramework", () => {
  it("accepts a framework with unique dimension ids and ignores unknown keys", () => {
    const parsed = parseFramework({ ...researchFramework, version: 2 });
    expect(parsed).toMatchObject({ ok: true, framework: { id: "research-answer-quality" } });
  });

  it("accepts a framework without keywords: keywords only order the audits", () => {
    const noKeywords = { ...researchFramework, keywords: undefined, dimensions: researchFramework.dimensions.map((d) => ({ ...d, keywords: [] })) };
    expect(parseFramework(noKeywords)).toMatchObject({ ok: true });
  });

  it("refuses missing fields, bad ids and duplicate dimensions", () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ id: "x", name: "X", description: "d" }, /dimensions/],
      [{ ...researchFramework, id: "Bad Id" }, /\/id/],
      [{ ...researchFramework, dimensions: [] }, /dimensions/],
      [{ ...researchFramework, dimensions: [researchFramework.dimensions[0], researchFramework.dimensions[0]] }, /used twice/],
      [{ ...researchFramework, dimensions: [{ id: "a", name: "A", description: "d", keywords: "source" }] }, /keywords/],
      ["not an object", /root/],
    ];
    for (const [input, error] of cases) {
      const parsed = parseFramework(input);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.error).toMatch(error);
    }
  });
});

describe("loadFrameworks", () => {
  it("loads every valid JSON file of a folder in name order and logs why the others were skipped", async () => {
    await writeJson("b-research.json", researchFramework);
    await writeJson("a-cooking.json", { ...researchFramework, id: "cooking" });
    await writeJson("c-broken.json", "{ not json");
    await writeJson("d-invalid.json", { id: "x" });
    await writeJson("e-duplicate.json", researchFramework);
    await writeJson("notes.txt", "ignored");

    const frameworks = await loadFrameworks(dir, { logger: recordingLogger(lines) });

    expect(frameworks.map((framework) => framework.id)).toEqual(["cooking", "research-answer-quality"]);
    const skipped = lines.filter((line) => line.message === "reflection framework skipped");
    expect(skipped.map((line) => [path.basename(String(line.fields.file)), String(line.fields.reason)])).toEqual([
      ["c-broken.json", expect.stringContaining("not valid JSON")],
      ["d-invalid.json", expect.stringContaining("invalid framework")],
      ["e-duplicate.json", expect.stringContaining("already loaded")],
    ]);
  });

  it("takes a list of files and folders and skips paths that do not exist", async () => {
    const file = await writeJson("one.json", researchFramework);
    const frameworks = await loadFrameworks([file, path.join(dir, "missing")], { logger: recordingLogger(lines) });
    expect(frameworks.map((framework) => framework.id)).toEqual(["research-answer-quality"]);
    expect(lines).toContainEqual(expect.objectContaining({ message: "reflection framework path skipped", fields: expect.objectContaining({ reason: "ENOENT" }) }));
  });

  it("ships a valid research answer quality framework", async () => {
    const frameworks = await loadFrameworks(bundledFrameworksDir(), { logger: recordingLogger(lines) });
    expect(lines).toEqual([]);
    const research = frameworks.find((framework) => framework.id === "research-answer-quality");
    expect(research?.dimensions.map((dimension) => dimension.id)).toEqual([
      "sources-cited",
      "recency-checked",
      "counter-evidence",
      "uncertainty-stated",
      "actionable-summary",
    ]);
  });
});
