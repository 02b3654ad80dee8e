import { mkdtemp, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, it, expect } from "vitest";
import { applyResultBudget, type BudgetedResult, type ResultBudgetOptions } from "./result-budget.js";

let root: string;
let spillDir: string;

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "hermes-"));
  spillDir = path.join(root, "tool-results");
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function options(overrides: Partial<ResultBudgetOptions> = {}): ResultBudgetOptions {
  return { spillDir, defaultMaxChars: 1_000, perTurnMaxChars: 100_000, previewChars: 50, ...overrides };
}

/** Text of a given length whose start is recognisable, so previews can be checked. */
function text(label: string, length: number): string {
  return `${label}:`.padEnd(length, label.slice(0, 1));
}

function result(toolCallId: string, content: string, maxChars?: number): BudgetedResult {
  return { toolCallId, toolName: "read_file", content, ...(maxChars === undefined ? {} : { maxChars }) };
}

async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch {
    return false;
  }
}

const turnSize = (outcomes: readonly { content: string }[]): number =>
  outcomes.reduce((sum, o) => sum + o.content.length, 0);

describe("applyResultBudget: single results", () => {
  it("leaves results under their threshold untouched and writes nothing", async () => {
    const small = text("a", 1_000);
    const outcomes = await applyResultBudget([result("c1", small), result("c2", "short")], options());
    expect(outcomes).toEqual([{ content: small }, { content: "short" }]);
    expect(await exists(spillDir)).toBe(false);
  });

  it("returns nothing for no results", async () => {
    expect(await applyResultBudget([], options())).toEqual([]);
  });

  it("saves a result over the default threshold and replaces it by a preview naming the file", async () => {
    const big = text("big", 1_001);
    const [outcome] = await applyResultBudget([result("call_1", big)], options());

    expect(outcome?.spilledTo).toBeDefined();
    const file = outcome?.spilledTo ?? "";
    expect(path.dirname(file)).toBe(spillDir);
    expect(await readFile(file, "utf8")).toBe(big);

    const content = outcome?.content ?? "";
    expect(content.startsWith(big.slice(0, 50))).toBe(true);
    expect(content).not.toContain(big.slice(0, 51));
    expect(content).toContain(file);
    expect(content).toContain("1001");
    expect(content).toContain("read_file");
    expect(content.length).toBeLessThan(big.length);
  });

  it("uses the tool's own threshold when it has one", async () => {
    const medium = text("m", 200);
    const outcomes = await applyResultBudget(
      [result("strict", medium, 100), result("lenient", medium, 5_000), result("default", medium)],
      options(),
    );
    expect(outcomes[0]?.spilledTo).toBeDefined();
    expect(outcomes[1]).toEqual({ content: medium });
    expect(outcomes[2]).toEqual({ content: medium });
  });

  it("exempts a tool with an infinite threshold from the per-result limit", async () => {
    const huge = text("h", 50_000);
    const [outcome] = await applyResultBudget([result("c1", huge, Infinity)], options());
    expect(outcome).toEqual({ content: huge });
    expect(await exists(spillDir)).toBe(false);
  });

  it("names the file after the call id, made safe for the file system", async () => {
    const big = text("x", 2_000);
    const [outcome] = await applyResultBudget([result("../../etc/passwd", big)], options());
    const file = outcome?.spilledTo ?? "";
    expect(path.dirname(file)).toBe(spillDir);
    expect(await readdir(spillDir)).toEqual([path.basename(file)]);
    expect(await readFile(file, "utf8")).toBe(big);
  });

  it("still gives a truncated preview with the reason when the spill folder cannot be written", async () => {
    const blocker = path.join(root, "not-a-folder");
    await writeFile(blocker, "a file where the folder should be");
    const big = text("big", 3_000);

    const [outcome] = await applyResultBudget([result("c1", big)], options({ spillDir: path.join(blocker, "spill") }));

    expect(outcome?.spilledTo).toBeUndefined();
    const content = outcome?.content ?? "";
    expect(content.startsWith(big.slice(0, 50))).toBe(true);
    expect(content).not.toContain(big.slice(0, 51));
    expect(content).toContain("3000");
    expect(content).toContain("could not be saved");
    expect(content).toMatch(/ENOTDIR|EEXIST/);
    expect(content.length).toBeLessThan(big.length);
  });

  it("gives two results with the same call id separate saved files", async () => {
    // Models do repeat call ids (history repair exists for that); each preview must still point at its own text.
    const first = text("first", 2_000);
    const second = text("second", 2_000);
    const outcomes = await applyResultBudget([result("call_0", first), result("call_0", second)], options());

    const files = outcomes.map((o) => o.spilledTo ?? "");
    expect(files[0]).not.toBe(files[1]);
    expect(await readFile(files[0] ?? "", "utf8")).toBe(first);
    expect(await readFile(files[1] ?? "", "utf8")).toBe(second);
  });
});

describe("applyResultBudget: per-turn budget", () => {
  it("leaves a turn exactly at its budget untouched", async () => {
    const results = [result("a", text("a", 600)), result("b", text("b", 400))];
    const outcomes = await applyResultBudget(results, options({ perTurnMaxChars: 1_000 }));
    expect(outcomes).toEqual(results.map((r) => ({ content: r.content })));
  });

  it("saves the largest result first and stops once the turn is under budget", async () => {
    const results = [result("small", text("s", 600)), result("large", text("l", 900)), result("mid", text("m", 800))];
    const budget = options({ perTurnMaxChars: 2_000 });

    const outcomes = await applyResultBudget(results, budget);

    expect(outcomes[0]).toEqual({ content: results[0]?.content });
    expect(outcomes[2]).toEqual({ content: results[2]?.content });
    expect(outcomes[1]?.spilledTo).toBeDefined();
    expect(await readFile(outcomes[1]?.spilledTo ?? "", "utf8")).toBe(results[1]?.content);
    expect(turnSize(outcomes)).toBeLessThanOrEqual(2_000);
  });

  it("keeps saving in order of size until the turn fits", async () => {
    const results = [result("small", text("s", 600)), result("large", text("l", 900)), result("mid", text("m", 800))];
    const outcomes = await applyResultBudget(results, options({ perTurnMaxChars: 1_200 }));

    expect(outcomes[0]).toEqual({ content: results[0]?.content });
    expect(outcomes[1]?.spilledTo).toBeDefined();
    expect(outcomes[2]?.spilledTo).toBeDefined();
    expect(await readFile(outcomes[2]?.spilledTo ?? "", "utf8")).toBe(results[2]?.content);
    expect(turnSize(outcomes)).toBeLessThanOrEqual(1_200);
  });

  it("never spills results of tools that page themselves (infinite threshold), even over the turn budget", async () => {
    const results = [result("exempt", text("e", 5_000), Infinity), result("other", text("o", 3_000))];
    const outcomes = await applyResultBudget(results, options({ perTurnMaxChars: 2_000 }));
    expect(outcomes[0]).toEqual({ content: results[0]?.content });
    expect(outcomes[1]?.spilledTo).toBeDefined();
  });

  it("counts results saved by their own threshold at their preview size", async () => {
    const results = [result("over", text("o", 5_000)), result("a", text("a", 700)), result("b", text("b", 700))];
    const outcomes = await applyResultBudget(results, options({ perTurnMaxChars: 2_000 }));
    expect(outcomes[0]?.spilledTo).toBeDefined();
    expect(outcomes[1]).toEqual({ content: results[1]?.content });
    expect(outcomes[2]).toEqual({ content: results[2]?.content });
    expect(await readdir(spillDir)).toHaveLength(1);
  });

  it("does not save results that are no longer than a preview", async () => {
    const results = [result("a", text("a", 50)), result("b", text("b", 50)), result("c", text("c", 50))];
    const outcomes = await applyResultBudget(results, options({ perTurnMaxChars: 100 }));
    expect(outcomes).toEqual(results.map((r) => ({ content: r.content })));
    expect(await exists(spillDir)).toBe(false);
  });

  it("does not spill results so short that their preview and note would be longer", async () => {
    // Each result is a little over the preview size, so its preview plus the note is longer than the result itself.
    const results = Array.from({ length: 8 }, (_, i) => result(`c${i}`, text(`r${i}`, 200)));
    const before = turnSize(results);
    const outcomes = await applyResultBudget(results, options({ perTurnMaxChars: 1_000 }));
    expect(turnSize(outcomes)).toBeLessThanOrEqual(before);
  });
});

describe("result budget: telling the embedder of saved outputs", () => {
  it("hands each saved output to onSpill before the note, which can name it relative to the workspace", async () => {
    const spilled: Array<{ file: string; content: string }> = [];
    const big = text("alpha", 2_000);
    const [outcome] = await applyResultBudget([result("call-1", big)], {
      ...options({ notePathsRelativeTo: path.join(root, "workspace") }),
      onSpill: async (file, content) => {
        spilled.push({ file, content });
      },
    });
    expect(spilled).toEqual([{ file: outcome?.spilledTo, content: big }]);
    const relative = path.relative(path.join(root, "workspace"), outcome?.spilledTo ?? "");
    expect(relative.startsWith("../tool-results/call-1-")).toBe(true);
    expect(outcome?.content).toContain(`was saved to ${relative};`);
    expect(outcome?.content).not.toContain(root);
  });

  it("tells the model the output could not be saved when onSpill fails", async () => {
    const [outcome] = await applyResultBudget([result("call-1", text("beta", 2_000))], {
      ...options(),
      onSpill: async () => {
        throw new Error("database unreachable");
      },
    });
    expect(outcome?.spilledTo).toBeUndefined();
    expect(outcome?.content).toContain("the full output could not be saved (database unreachable)");
  });
});
