import path from "node:path";
import type { ConcurrencyClass } from "./types.js";

export interface PlannedCall {
  index: number;
  concurrency: ConcurrencyClass;
  /** Absolute paths a path-scoped call touches; undefined when they could not be determined. */
  paths?: readonly string[];
}

/**
 * Splits one model response's calls into groups that run one after another; calls inside a group run concurrently.
 * When in doubt a call runs alone: unknown paths, never-parallel tools, or overlapping paths start a new group.
 */
export function planBatches(calls: readonly PlannedCall[]): number[][] {
  const groups: number[][] = [];
  let current: number[] = [];
  let currentPaths: string[] = [];

  const flush = (): void => {
    if (current.length > 0) groups.push(current);
    current = [];
    currentPaths = [];
  };

  for (const call of calls) {
    if (call.concurrency === "never-parallel") {
      flush();
      groups.push([call.index]);
      continue;
    }
    if (call.concurrency === "path-scoped") {
      const paths = call.paths;
      if (!paths || paths.length === 0) {
        flush();
        groups.push([call.index]);
        continue;
      }
      if (paths.some((p) => currentPaths.some((q) => pathsOverlap(p, q)))) flush();
      current.push(call.index);
      currentPaths.push(...paths);
      continue;
    }
    current.push(call.index);
  }
  flush();
  return groups;
}

/** Two paths overlap when one is the other or contains it, compared by path components, not string prefixes. */
export function pathsOverlap(a: string, b: string): boolean {
  const partsA = splitPath(a);
  const partsB = splitPath(b);
  const shorter = Math.min(partsA.length, partsB.length);
  for (let i = 0; i < shorter; i += 1) {
    if (partsA[i] !== partsB[i]) return false;
  }
  return true;
}

function splitPath(p: string): string[] {
  return path.resolve(p).split(path.sep).filter((part) => part.length > 0);
}
