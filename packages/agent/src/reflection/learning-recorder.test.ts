import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseEntries } from "../memory/memory-entries.js";
import { MemoryStore } from "../memory/memory-store.js";
import { LearningRecorder } from "./learning-recorder.js";
import { auditResult, recordingLogger, researchFramework, type LogLine } from "./test-fixtures.js";

let dir: string;
let lines: LogLine[];
let memory: MemoryStore;

const NOV_30 = Date.UTC(2026, 10, 30, 12);

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "hermes-"));
  lines = [];
  memory = new MemoryStore({ dir });
});

afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

function recorder(options: { limit?: number } = {}): LearningRecorder {
  const store = options.limit === undefined ? memory : new MemoryStore({ dir, limits: { memory: options.limit } });
  return new LearningRecorder({ memory: store, logger: recordingLogger(lines), now: () => NOV_30 });
}

async function memoryEntries(): Promise<string[]> {
  const text = await fs.readFile(path.join(dir, "MEMORY.md"), "utf8").catch(() => "");
  return parseEntries(text);
}

describe("LearningRecorder", () => {
  it("appends one dated learning entry per audit to MEMORY.md", async () => {
    const audit = auditResult(researchFramework, { covered: ["sources-cited"], missing: ["counter-evidence"], learnings: ["Search for one credible source that disagrees."] });

    const outcome = await recorder().record([audit]);

    const expected =
      "[learning] 2026-11-30 research-answer-quality: covered Sources cited; missing Counter-evidence considered; next time: Search for one credible source that disagrees.";
    expect(outcome).toEqual({ recorded: [expected], unconfirmed: [], duplicates: 0, secrets: 0, overLimit: 0 });
    expect(await memoryEntries()).toEqual([expected]);
  });

  it("states the missed dimensions as the lesson when the auditor gave none, and records nothing when nothing was missed", async () => {
    const missed = auditResult(researchFramework, { missing: ["recency-checked", "counter-evidence"] });
    const perfect = auditResult(researchFramework, { covered: ["sources-cited", "recency-checked"] });

    const outcome = await recorder().record([missed, perfect]);

    expect(outcome.recorded).toEqual([
      "[learning] 2026-11-30 research-answer-quality: missing Recency checked, Counter-evidence considered; next time: also cover Recency checked, Counter-evidence considered",
    ]);
    expect(await memoryEntries()).toHaveLength(1);
  });

  it("never records a lesson twice: not across reviews, not within a batch, not in another case or punctuation", async () => {
    const audit = auditResult(researchFramework, { missing: ["counter-evidence"], learnings: ["Name a dissenting study.", "name a dissenting study"] });
    const first = await recorder().record([audit, audit]);
    expect(first).toMatchObject({ duplicates: 3 });
    expect(first.recorded).toHaveLength(1);

    const again = await recorder().record([auditResult(researchFramework, { covered: ["counter-evidence"], learnings: ["NAME A DISSENTING STUDY!"] })]);

    expect(again).toEqual({ recorded: [], unconfirmed: [], duplicates: 1, secrets: 0, overLimit: 0 });
    expect(await memoryEntries()).toHaveLength(1);
  });

  it("treats a lesson a person already wrote into memory as known", async () => {
    await fs.writeFile(path.join(dir, "MEMORY.md"), "§ Research answers: always give publication dates.\n");
    const outcome = await recorder().record([auditResult(researchFramework, { missing: ["recency-checked"], learnings: ["Always give publication dates"] })]);
    expect(outcome).toMatchObject({ recorded: [], duplicates: 1 });
  });

  it("drops lessons that look like secrets and keeps the rest", async () => {
    const audit = auditResult(researchFramework, {
      missing: ["sources-cited"],
      learnings: ["The search key is api_key=sk-live-0123456789abcdef0123", "Link every source you quote."],
    });

    const outcome = await recorder().record([audit]);

    expect(outcome.secrets).toBe(1);
    expect(outcome.recorded).toEqual(["[learning] 2026-11-30 research-answer-quality: missing Sources cited; next time: Link every source you quote."]);
    expect((await fs.readFile(path.join(dir, "MEMORY.md"), "utf8")).includes("sk-live")).toBe(false);
    expect(lines).toContainEqual(expect.objectContaining({ level: "warn", message: "learnings dropped because they looked like secrets" }));
  });

  it("keeps entries short", async () => {
    const long = `Check ${"very ".repeat(60)}carefully.`;
    const outcome = await recorder().record([auditResult(researchFramework, { missing: ["sources-cited"], learnings: [long, "Second lesson."] })]);
    expect(outcome.recorded).toHaveLength(1);
    expect(outcome.recorded[0]?.length).toBeLessThanOrEqual(360);
    expect(outcome.recorded[0]).toMatch(/next time: Check very very [a-z ]*… \| Second lesson\.$/);
  });

  it("logs and skips, without failing, when MEMORY.md would go over its limit", async () => {
    await fs.writeFile(path.join(dir, "MEMORY.md"), `§ ${"x".repeat(150)}\n`);
    const outcome = await recorder({ limit: 200 }).record([auditResult(researchFramework, { missing: ["sources-cited"], learnings: ["Link every source."] })]);

    expect(outcome).toEqual({ recorded: [], unconfirmed: [], duplicates: 0, secrets: 0, overLimit: 1 });
    expect(await memoryEntries()).toEqual(["x".repeat(150)]);
    expect(lines).toContainEqual(expect.objectContaining({ level: "warn", message: "learning not recorded: MEMORY.md would go over its limit" }));
  });

  it("reports entries memory refused as unconfirmed", async () => {
    // A lock another writer never lets go of is the one refusal that cannot be staged with real files here.
    const refusing = { read: (target: "memory") => memory.read(target), add: async () => ({ ok: false as const, code: "busy" as const, error: "locked" }) };
    const outcome = await new LearningRecorder({ memory: refusing, now: () => NOV_30 }).record([
      auditResult(researchFramework, { missing: ["sources-cited"], learnings: ["Link every source."] }),
    ]);
    expect(outcome.recorded).toEqual([]);
    expect(outcome.unconfirmed).toHaveLength(1);
  });
});
