import path from "node:path";
import { describe, it, expect } from "vitest";
import { planBatches, pathsOverlap, type PlannedCall } from "./batch-plan.js";

const parallel = (index: number): PlannedCall => ({ index, concurrency: "parallel-safe" });
const alone = (index: number): PlannedCall => ({ index, concurrency: "never-parallel" });
const scoped = (index: number, ...paths: string[]): PlannedCall => ({ index, concurrency: "path-scoped", paths });
const scopedUnknown = (index: number): PlannedCall => ({ index, concurrency: "path-scoped" });

describe("pathsOverlap", () => {
  it("treats sibling files as separate", () => {
    expect(pathsOverlap("/tmp/a.txt", "/tmp/b.txt")).toBe(false);
  });

  it("treats a folder and a file inside it as overlapping, in either order", () => {
    expect(pathsOverlap("/tmp/dir", "/tmp/dir/file.txt")).toBe(true);
    expect(pathsOverlap("/tmp/dir/file.txt", "/tmp/dir")).toBe(true);
    expect(pathsOverlap("/tmp/dir", "/tmp/dir/sub/deeper/file.txt")).toBe(true);
  });

  it("treats a path as overlapping itself", () => {
    expect(pathsOverlap("/tmp/a.txt", "/tmp/a.txt")).toBe(true);
  });

  it("compares whole path components, not string prefixes", () => {
    expect(pathsOverlap("/tmp/ab", "/tmp/a")).toBe(false);
    expect(pathsOverlap("/tmp/a", "/tmp/ab")).toBe(false);
    expect(pathsOverlap("/tmp/dir-old/x", "/tmp/dir")).toBe(false);
  });

  it("normalises `..`, `.`, repeated and trailing separators", () => {
    expect(pathsOverlap("/tmp/dir/../a.txt", "/tmp/a.txt")).toBe(true);
    expect(pathsOverlap("/tmp/dir/../a.txt", "/tmp/dir")).toBe(false);
    expect(pathsOverlap("/tmp/./dir//file.txt", "/tmp/dir/")).toBe(true);
    expect(pathsOverlap("/tmp/dir/", "/tmp/dir")).toBe(true);
  });

  it("resolves relative paths against the working directory", () => {
    const cwd = process.cwd();
    expect(pathsOverlap("notes.txt", path.join(cwd, "notes.txt"))).toBe(true);
    expect(pathsOverlap("sub/file.txt", path.join(cwd, "sub"))).toBe(true);
    expect(pathsOverlap("sub/../other.txt", path.join(cwd, "sub"))).toBe(false);
    expect(pathsOverlap("a.txt", "b.txt")).toBe(false);
  });

  it("treats the root as containing everything", () => {
    expect(pathsOverlap("/", "/tmp/a.txt")).toBe(true);
  });
});

describe("planBatches", () => {
  it("returns no groups for no calls", () => {
    expect(planBatches([])).toEqual([]);
  });

  it("groups parallel-safe calls together", () => {
    expect(planBatches([parallel(0), parallel(1), parallel(2)])).toEqual([[0, 1, 2]]);
  });

  it("runs never-parallel calls alone and in call order", () => {
    expect(planBatches([parallel(0), alone(1), parallel(2), alone(3), alone(4), parallel(5)])).toEqual([
      [0],
      [1],
      [2],
      [3],
      [4],
      [5],
    ]);
  });

  it("runs path-scoped calls without known paths alone", () => {
    expect(planBatches([parallel(0), scopedUnknown(1), parallel(2)])).toEqual([[0], [1], [2]]);
    expect(planBatches([scoped(0, "/tmp/a"), scoped(1), scoped(2, "/tmp/b")])).toEqual([[0], [1], [2]]);
  });

  it("groups path-scoped calls whose paths do not overlap, with parallel-safe calls", () => {
    expect(planBatches([scoped(0, "/tmp/a.txt"), parallel(1), scoped(2, "/tmp/b.txt")])).toEqual([[0, 1, 2]]);
  });

  it("starts a new group when a call's paths overlap the current group's", () => {
    expect(planBatches([scoped(0, "/tmp/a.txt"), scoped(1, "/tmp/a.txt")])).toEqual([[0], [1]]);
    expect(planBatches([scoped(0, "/tmp/dir"), scoped(1, "/tmp/dir/file.txt")])).toEqual([[0], [1]]);
    expect(planBatches([scoped(0, "/tmp/ab"), scoped(1, "/tmp/a")])).toEqual([[0, 1]]);
  });

  it("checks every path of a call that touches several", () => {
    expect(planBatches([scoped(0, "/tmp/a", "/tmp/b"), scoped(1, "/tmp/c", "/tmp/b/x")])).toEqual([[0], [1]]);
    expect(planBatches([scoped(0, "/tmp/a", "/tmp/b"), scoped(1, "/tmp/c", "/tmp/d")])).toEqual([[0, 1]]);
  });

  it("compares only with the current group once an overlap has started a new one", () => {
    const calls = [scoped(0, "/w/a"), scoped(1, "/w/b"), scoped(2, "/w/a/x"), scoped(3, "/w/b"), scoped(4, "/w/a/x")];
    expect(planBatches(calls)).toEqual([[0, 1], [2, 3], [4]]);
  });

  it("plans a mixed response", () => {
    const calls = [
      parallel(0),
      scoped(1, "/tmp/a.txt"),
      scoped(2, "/tmp/b.txt"),
      alone(3),
      scoped(4, "/tmp/a.txt"),
      parallel(5),
      scoped(6, "/tmp/a.txt"),
      scopedUnknown(7),
      parallel(8),
      parallel(9),
    ];
    expect(planBatches(calls)).toEqual([[0, 1, 2], [3], [4, 5], [6], [7], [8, 9]]);
  });

  it("keeps every call exactly once, in order", () => {
    const calls = [alone(0), scoped(1, "/x"), scoped(2, "/x"), parallel(3), scopedUnknown(4), scoped(5, "/y")];
    expect(planBatches(calls).flat()).toEqual([0, 1, 2, 3, 4, 5]);
  });
});
