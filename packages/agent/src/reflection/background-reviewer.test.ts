import { promises as fs } from "node:fs";
import path from "node:path";
import { fauxAssistantMessage, registerFauxProvider, type AssistantMessage, type FauxProviderRegistration, type Message } from "@mariozechner/pi-ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseEntries } from "../memory/memory-entries.js";
import { MemoryStore } from "../memory/memory-store.js";
import { context, SpanStatusCode } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { idOf, parentIdOf, recordingTracer, type RecordingTracer } from "../observability/tracer.fixture.js";
import { SkillCatalog } from "../skills/skill-cache.js";
import { makeTempDir } from "../skills/skill-fixtures.js";
import { BackgroundReviewer, type BackgroundReviewerOptions, type ReviewTask } from "./background-reviewer.js";
import type { ReviewReport } from "./review-run.js";
import { auditJson, recordingLogger, researchConversation, researchFramework, smallTalk, type LogLine } from "./test-fixtures.js";

const SKILL_BODY = "# Look for dissent\n\n## Steps\n1. Search for a credible source that disagrees.\n2. Weigh it in the answer.";
const LESSON = "Search for a credible source that disagrees before concluding.";
const AUDIT = auditJson({ covered: ["sources-cited", "recency-checked"], missing: ["counter-evidence"], learnings: [LESSON] });
const SKILL_NAME = "research-answer-quality-counter-evidence";
const ALL_COVERED = auditJson({ covered: ["sources-cited", "recency-checked", "counter-evidence"] });
const NO_CURATION = JSON.stringify({ merge: [], drop: [] });
const NO_PATCH = JSON.stringify({ patches: [] });

let faux: FauxProviderRegistration;
let base: string;
let local: string;
let memoryDir: string;
let memory: MemoryStore;
let memoryChanges: number;
let catalog: SkillCatalog;
let recorder: RecordingTracer;
let reports: ReviewReport[];
let lines: LogLine[];
let scheduled: ReviewTask[];

beforeEach(async () => {
  faux = registerFauxProvider();
  base = await makeTempDir();
  local = path.join(base, "home", "skills");
  memoryDir = path.join(base, "home", "memory");
  memory = new MemoryStore({ dir: memoryDir });
  memoryChanges = 0;
  catalog = new SkillCatalog({ roots: [path.join(base, "bundled"), local], localSkillsDir: local });
  recorder = recordingTracer();
  reports = [];
  lines = [];
  scheduled = [];
});

afterEach(async () => {
  await recorder.shutdown();
  faux.unregister();
  await fs.rm(base, { recursive: true, force: true });
});

function reviewer(options: Partial<BackgroundReviewerOptions> = {}): BackgroundReviewer {
  let clock = Date.UTC(2026, 10, 30);
  return new BackgroundReviewer({
    model: { model: faux.getModel() },
    memory,
    onMemoryChanged: () => void (memoryChanges += 1),
    skills: { catalog },
    frameworks: [researchFramework],
    tracer: recorder.tracer,
    logger: recordingLogger(lines),
    now: () => clock,
    onReviewComplete: (report) => reports.push(report),
    ...options,
  });
}

/** Finished spans grouped by trace, each trace's root first and then in start order. */
function traces(): ReadableSpan[][] {
  const byTrace = new Map<string, ReadableSpan[]>();
  for (const span of recorder.spans()) {
    const id = span.spanContext().traceId;
    byTrace.set(id, [...(byTrace.get(id) ?? []), span]);
  }
  const startOf = (span: ReadableSpan): number => span.startTime[0] * 1e9 + span.startTime[1];
  const rootFirst = (a: ReadableSpan, b: ReadableSpan): number =>
    Number(parentIdOf(a) !== undefined) - Number(parentIdOf(b) !== undefined) || startOf(a) - startOf(b);
  return [...byTrace.values()].map((spans) => spans.sort(rootFirst));
}

const failed = (span: ReadableSpan): boolean => span.status.code === SpanStatusCode.ERROR;

/** Holds scheduled reviews until the test runs them. */
const manualSchedule = (task: ReviewTask): void => void scheduled.push(task);

async function runScheduled(subject: BackgroundReviewer): Promise<void> {
  for (const task of scheduled.splice(0)) task();
  await subject.idle();
}

function turn(subject: BackgroundReviewer, messages: Message[], steps = 1): void {
  subject.onTurnStart(1);
  subject.afterRun({ messages, steps, sessionId: "chat-1" });
}

async function memoryEntries(): Promise<string[]> {
  return parseEntries(await fs.readFile(path.join(memoryDir, "MEMORY.md"), "utf8").catch(() => ""));
}

describe("BackgroundReviewer triggers", () => {
  it("starts a review on the Nth turn", () => {
    const subject = reviewer({ turnNudgeInterval: 3, iterationNudgeInterval: 0, schedule: manualSchedule });
    turn(subject, smallTalk());
    turn(subject, smallTalk());
    expect([scheduled.length, subject.reviewing]).toEqual([0, false]);
    turn(subject, smallTalk());
    expect([scheduled.length, subject.reviewing]).toEqual([1, true]);
  });

  it("starts a review when the iterations of several runs reach the interval", () => {
    const subject = reviewer({ turnNudgeInterval: 0, iterationNudgeInterval: 5, schedule: manualSchedule });
    turn(subject, smallTalk(), 2);
    turn(subject, smallTalk(), 2);
    expect(scheduled).toHaveLength(0);
    turn(subject, smallTalk(), 1);
    expect(scheduled).toHaveLength(1);
  });

  it("rotates memory → skill → combined, one mode per review", async () => {
    faux.setResponses(Array.from({ length: 4 }, () => fauxAssistantMessage(ALL_COVERED)));
    const subject = reviewer({ turnNudgeInterval: 1 });
    for (let index = 0; index < 4; index += 1) {
      turn(subject, smallTalk());
      await subject.idle();
    }
    expect(reports.map((report) => report.mode)).toEqual(["memory", "skill", "combined", "memory"]);
    // Small talk matches no framework keyword and is audited all the same: one audit call per review.
    expect(faux.state.callCount).toBe(4);
  });

  it("returns from afterRun before the review has made any model call", async () => {
    faux.setResponses([fauxAssistantMessage(AUDIT), fauxAssistantMessage(NO_CURATION)]);
    const subject = reviewer({ turnNudgeInterval: 1, modes: ["memory"] });
    turn(subject, researchConversation());
    expect(subject.reviewing).toBe(true);
    expect(faux.state.callCount).toBe(0);
    await subject.idle();
    expect(faux.state.callCount).toBe(2);
    expect(subject.reviewing).toBe(false);
  });

  it("runs one review at a time: a trigger during a review is skipped, logged, and taken up after it", async () => {
    let release: (message: AssistantMessage) => void = () => {};
    let auditStarted: () => void = () => {};
    const started = new Promise<void>((resolve) => (auditStarted = resolve));
    faux.setResponses([
      () => {
        auditStarted();
        return new Promise<AssistantMessage>((resolve) => (release = resolve));
      },
      fauxAssistantMessage(NO_CURATION),
      fauxAssistantMessage(AUDIT),
    ]);
    const subject = reviewer({ turnNudgeInterval: 1 });
    turn(subject, researchConversation());
    await started;

    turn(subject, researchConversation());
    expect(lines).toContainEqual(expect.objectContaining({ message: "background review skipped: another review is still running" }));
    release(fauxAssistantMessage(AUDIT));
    await subject.idle();
    expect(reports.map((report) => report.mode)).toEqual(["memory"]);

    turn(subject, researchConversation());
    await subject.idle();
    expect(reports.map((report) => report.mode)).toEqual(["memory", "skill"]);
    expect(reports[1]?.skills).toMatchObject([{ name: SKILL_NAME, status: "created" }]);
  });

  it("never throws into the caller: a failing scheduler or a failing review is logged", async () => {
    const broken = reviewer({
      turnNudgeInterval: 1,
      schedule: () => {
        throw new Error("no timers");
      },
    });
    expect(() => turn(broken, smallTalk())).not.toThrow();
    expect(broken.reviewing).toBe(false);
    expect(lines).toContainEqual(expect.objectContaining({ level: "error", message: "background review could not be scheduled" }));

    faux.setResponses([fauxAssistantMessage([], { stopReason: "error", errorMessage: "overloaded" }), fauxAssistantMessage(AUDIT)]);
    const failingAudit = reviewer({ turnNudgeInterval: 1, modes: ["memory"] });
    turn(failingAudit, researchConversation());
    await failingAudit.idle();
    expect(traces()[0]?.map((span) => [span.name, failed(span), span.status.message])).toEqual([
      ["background_reflection", false, undefined],
      ["audit", true, "the audit call failed: overloaded"],
      ["learning_record", false, undefined],
    ]);

    const gone = async (): Promise<never> => Promise.reject(new Error("disk gone"));
    const brokenMemory = { read: gone, add: gone, replace: gone, remove: gone };
    const crashing = reviewer({ turnNudgeInterval: 1, modes: ["memory"], memory: brokenMemory });
    expect(() => turn(crashing, researchConversation())).not.toThrow();
    await crashing.idle();
    expect(lines).toContainEqual(expect.objectContaining({ level: "error", message: "background review failed", fields: expect.objectContaining({ error: "disk gone" }) }));
    expect(traces()[1]?.map((span) => [span.name, failed(span)])).toEqual([
      ["background_reflection", true],
      ["audit", false],
      ["learning_record", true],
    ]);
  });
});

describe("BackgroundReviewer reviews", () => {
  it("turns a scripted audit into a new local skill and a learning in MEMORY.md, traced as one background_reflection", async () => {
    faux.setResponses([fauxAssistantMessage(AUDIT), fauxAssistantMessage(SKILL_BODY), fauxAssistantMessage(NO_CURATION)]);
    const subject = reviewer({ turnNudgeInterval: 1, modes: ["combined"], schedule: manualSchedule });

    turn(subject, researchConversation());
    await runScheduled(subject);

    expect(await fs.readFile(path.join(local, SKILL_NAME, "SKILL.md"), "utf8")).toContain(SKILL_BODY);
    expect((await catalog.index()).skills.get(SKILL_NAME)?.source).toBe("local");
    expect(await memoryEntries()).toEqual([
      `[learning] 2026-11-30 research-answer-quality: covered Sources cited, Recency checked; missing Counter-evidence considered; next time: ${LESSON}`,
    ]);

    expect(traces()).toHaveLength(1);
    const [root, ...children] = traces()[0] ?? [];
    expect(root?.name).toBe("background_reflection");
    expect(root && failed(root)).toBe(false);
    expect(root?.attributes).toMatchObject({ "hermes.reflection.mode": "combined", "gen_ai.conversation.id": "chat-1", "hermes.reflection.frameworks_audited": 1 });
    expect(children.map((span) => [span.name, root !== undefined && parentIdOf(span) === idOf(root)])).toEqual([
      ["audit", true],
      ["skill_generation", true],
      ["learning_record", true],
    ]);
    expect(children[0]?.attributes).toMatchObject({ "hermes.reflection.framework": "research-answer-quality", "hermes.reflection.covered": 2, "hermes.reflection.missing": 1, "hermes.reflection.learnings": 1 });
    expect(children[1]?.attributes).toMatchObject({ "hermes.reflection.skills.created": 1 });
    expect(children[2]?.attributes).toMatchObject({ "hermes.reflection.learnings.recorded": 1, "hermes.reflection.learnings.duplicates": 0 });
    expect(reports[0]?.traceId).toBe(root?.spanContext().traceId);
    expect(memoryChanges).toBe(1);
  });

  it("adds no duplicate skill or learning when the same review runs again, and asks whether the skill needs a patch", async () => {
    faux.setResponses([
      fauxAssistantMessage(AUDIT),
      fauxAssistantMessage(SKILL_BODY),
      fauxAssistantMessage(NO_CURATION),
      fauxAssistantMessage(AUDIT),
      fauxAssistantMessage(NO_PATCH),
      fauxAssistantMessage(NO_CURATION),
    ]);
    const subject = reviewer({ turnNudgeInterval: 1, modes: ["combined"] });
    turn(subject, researchConversation());
    await subject.idle();
    const skillFile = await fs.readFile(path.join(local, SKILL_NAME, "SKILL.md"), "utf8");
    const memoryFile = await fs.readFile(path.join(memoryDir, "MEMORY.md"), "utf8");

    turn(subject, researchConversation());
    await subject.idle();

    expect(faux.state.callCount).toBe(6);
    expect(reports[1]?.skills).toEqual([{ dimensionId: "counter-evidence", name: SKILL_NAME, status: "exists" }]);
    expect(reports[1]?.skillPatches).toEqual([{ name: SKILL_NAME, status: "unchanged", patches: 0 }]);
    expect(reports[1]?.learnings).toMatchObject({ recorded: [], duplicates: 1 });
    expect(await fs.readdir(local)).toEqual([SKILL_NAME]);
    expect(await fs.readFile(path.join(local, SKILL_NAME, "SKILL.md"), "utf8")).toBe(skillFile);
    expect(await fs.readFile(path.join(memoryDir, "MEMORY.md"), "utf8")).toBe(memoryFile);
  });

  it("keeps secrets out of memory and writes only learnings in memory mode", async () => {
    const leaky = auditJson({ missing: ["counter-evidence"], learnings: ["Use password: hunter2-prod for the paywalled journal.", LESSON] });
    faux.setResponses([fauxAssistantMessage(leaky), fauxAssistantMessage(NO_CURATION)]);
    const subject = reviewer({ turnNudgeInterval: 1, modes: ["memory"] });

    turn(subject, researchConversation());
    await subject.idle();

    const saved = await fs.readFile(path.join(memoryDir, "MEMORY.md"), "utf8");
    expect(saved).toContain(LESSON);
    expect(saved).not.toContain("hunter2");
    expect(await fs.readdir(local).catch(() => [])).toEqual([]);
    expect(traces()[0]?.map((span) => span.name)).toEqual(["background_reflection", "audit", "learning_record"]);
    expect(traces()[0]?.[2]?.attributes).toMatchObject({ "hermes.reflection.learnings.recorded": 1, "hermes.reflection.learnings.secrets": 1 });
  });

  it("traces a review as a trace of its own, linked to the run span that was active when it was scheduled", async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    try {
      const subject = reviewer({ turnNudgeInterval: 1, modes: ["combined"] });
      const runSpan = recorder.tracer.startActiveSpan("hermes.run", (span) => {
        turn(subject, smallTalk());
        span.end();
        return span;
      });
      await subject.idle();
      const [review] = recorder.spans().filter((span) => span.name === "background_reflection");
      expect(review && parentIdOf(review)).toBeUndefined();
      expect(review?.spanContext().traceId).not.toBe(runSpan.spanContext().traceId);
      expect(review?.links.map((link) => link.context.spanId)).toEqual([runSpan.spanContext().spanId]);
    } finally {
      context.disable();
    }
  });

  it("shutdown stops new reviews", async () => {
    const subject = reviewer({ turnNudgeInterval: 1, schedule: manualSchedule });
    await subject.shutdown();
    turn(subject, smallTalk());
    expect(scheduled).toHaveLength(0);
  });
});
