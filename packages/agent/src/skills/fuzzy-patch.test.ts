import { describe, expect, it } from "vitest";
import { applyFuzzyPatch, similarity } from "./fuzzy-patch.js";

const doc = [
  "# Steps",
  "",
  "1. Collect the data.",
  "   - Use the export button.",
  "   - Save it as CSV.",
  "2. Clean it up.",
  "",
  "## Output",
  "Write a short report.",
  "",
].join("\n");

describe("applyFuzzyPatch", () => {
  it("replaces an exact unique match", () => {
    expect(applyFuzzyPatch(doc, "Clean it up.", "Remove duplicates.")).toEqual({
      ok: true,
      strategy: "exact",
      content: doc.replace("Clean it up.", "Remove duplicates."),
    });
  });

  it("refuses an ambiguous exact match", () => {
    const outcome = applyFuzzyPatch("a x\nb x\n", "x", "y");
    expect(outcome).toMatchObject({ ok: false, reason: "ambiguous", error: expect.stringMatching(/matches 2 places exactly/) });
  });

  it("falls back to a whitespace-normalised match", () => {
    const outcome = applyFuzzyPatch(doc, "  - Use the export   button.\n - Save it as CSV.  ", "   - Download the CSV file.");
    expect(outcome.ok && outcome.strategy).toBe("whitespace");
    expect(outcome.ok && outcome.content).toBe(doc.replace("- Use the export button.\n   - Save it as CSV.", "   - Download the CSV file."));
  });

  it("refuses an ambiguous whitespace-normalised match", () => {
    const outcome = applyFuzzyPatch("one  two\nthree\none\ttwo\n", "one two", "x");
    expect(outcome).toMatchObject({ ok: false, reason: "ambiguous", error: expect.stringMatching(/normalising whitespace/) });
  });

  it("falls back to a block anchored on its first and last lines", () => {
    const oldBlock = ["1. Collect the data.", "   - Use the export feature.", "   - Save the file as CSV.", "2. Clean it up."].join("\n");
    const outcome = applyFuzzyPatch(doc, oldBlock, "1. Download the CSV export.\n2. Clean it up.");
    expect(outcome.ok && outcome.strategy).toBe("block-anchored");
    expect(outcome.ok && outcome.content).toBe(
      ["# Steps", "", "1. Download the CSV export.", "2. Clean it up.", "", "## Output", "Write a short report.", ""].join("\n"),
    );
  });

  it("refuses a block whose middle is too different", () => {
    const oldBlock = ["1. Collect the data.", "Completely unrelated words here about nothing.", "2. Clean it up."].join("\n");
    expect(applyFuzzyPatch(doc, oldBlock, "x")).toMatchObject({ ok: false, reason: "not-found" });
  });

  it("refuses an ambiguous block-anchored match", () => {
    const text = "start\nalpha beta\nend\n\nstart\nalpha betta\nend\n";
    expect(applyFuzzyPatch(text, "start\nalpha bet\nend", "x")).toMatchObject({
      ok: false,
      reason: "ambiguous",
      error: expect.stringMatching(/first and last lines/),
    });
  });

  it("reports empty and missing old text", () => {
    expect(applyFuzzyPatch(doc, "  \n", "x")).toMatchObject({ ok: false, reason: "empty" });
    expect(applyFuzzyPatch(doc, "Nothing like this", "x")).toMatchObject({ ok: false, reason: "not-found" });
  });
});

describe("similarity", () => {
  it("is 1 for equal text and lower for different text", () => {
    expect(similarity("a  b", "a b")).toBe(1);
    expect(similarity("the export button", "the export feature")).toBeGreaterThan(0.5);
    expect(similarity("abc", "xyz")).toBe(0);
  });
});
