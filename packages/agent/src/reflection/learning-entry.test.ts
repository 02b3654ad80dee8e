import { describe, expect, it } from "vitest";
import { clipAtWord, learningEntry, lessonKey, lessonsOf, recordedLessons } from "./learning-entry.js";
import { auditResult, researchFramework } from "./test-fixtures.js";

describe("learning entries", () => {
  it("reads back the lessons it wrote, even when a lesson contained the separator", () => {
    const audit = auditResult(researchFramework, { missing: ["sources-cited"], learnings: ["Cite primary | official sources.", "Give dates."] });
    const lessons = lessonsOf(audit);
    const entry = learningEntry(audit, lessons, "2026-11-30", 400);
    expect(entry).toBe("[learning] 2026-11-30 research-answer-quality: missing Sources cited; next time: Cite primary / official sources. | Give dates.");
    expect(recordedLessons(entry ?? "")).toEqual(["Cite primary / official sources.", "Give dates."]);
    expect(recordedLessons("A note a person wrote; next time: whatever")).toEqual([]);
  });

  it("leaves out lessons that do not fit and writes nothing without a lesson", () => {
    const audit = auditResult(researchFramework, { covered: ["sources-cited"] });
    expect(learningEntry(audit, [], "2026-11-30", 400)).toBeUndefined();
    const entry = learningEntry(audit, ["First lesson here.", "Second lesson that will not fit."], "2026-11-30", 100);
    expect(entry).toBe("[learning] 2026-11-30 research-answer-quality: covered Sources cited; next time: First lesson here.");
  });

  it("compares lessons ignoring case, punctuation and spacing", () => {
    expect(lessonKey("  Cite   SOURCES! ")).toBe(lessonKey("cite sources"));
    expect(lessonKey("Cite sources")).not.toBe(lessonKey("Cite no sources"));
  });

  it("clips long text at a word boundary", () => {
    expect(clipAtWord("one two three four five", 12)).toBe("one two…");
    expect(clipAtWord("short", 12)).toBe("short");
  });
});
