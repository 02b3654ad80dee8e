import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Worker } from "node:worker_threads";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../observability/logger.js";
import type { ToolContext } from "../tools/types.js";
import { searchFilesTool } from "./search-files.js";
import { startSearchWorker } from "./search-files-runner.js";
import type { SearchJob } from "./search-files-scan.js";
import { createWorkspace, type Workspace } from "./workspace.js";

let base: string;
let ws: Workspace;

function contextWith(signal: AbortSignal = new AbortController().signal): ToolContext {
  return { signal, toolCallId: "call-1", sessionId: "s-1", logger: silentLogger };
}

async function put(relative: string, content: string | Uint8Array): Promise<void> {
  const target = path.join(ws.root, relative);
  await fs.mkdir(path.dirname(target), { recursive: true });
  await fs.writeFile(target, content);
}

beforeEach(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "hermes-")));
  ws = await createWorkspace(path.join(base, "ws"));
  await put("src/app.ts", "import { Router } from './router';\nconst router = new Router();\n");
  await put("src/router.ts", "export class Router {\n  route() {}\n}\n");
  await put("src/util/strings.js", "// TODO: router helpers\n");
  await put("README.md", "The Router routes (things).\n");
});

afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

async function search(args: Record<string, unknown>, context: ToolContext = contextWith()) {
  return searchFilesTool(ws).handler(args, context);
}

describe("search_files", () => {
  it("declares itself as a parallel-safe file tool", () => {
    const tool = searchFilesTool(ws);
    expect(tool.name).toBe("search_files");
    expect(tool.concurrency).toBe("parallel-safe");
  });

  it("finds content case-insensitively by default, as path:line: text", async () => {
    const result = await search({ pattern: "router\\b" });
    expect(result.isError).toBeUndefined();
    expect(result.content.split("\n")).toEqual([
      "README.md:1: The Router routes (things).",
      "src/app.ts:1: import { Router } from './router';",
      "src/app.ts:2: const router = new Router();",
      "src/router.ts:1: export class Router {",
      "src/util/strings.js:1: // TODO: router helpers",
    ]);
  });

  it("matches case exactly when asked", async () => {
    const result = await search({ pattern: "Router", case_sensitive: true, path: "src" });
    expect(result.content).not.toContain("strings.js");
    expect(result.content).toContain("src/router.ts:1:");
  });

  it("searches literal text when regex is false", async () => {
    const result = await search({ pattern: "(things)", regex: false });
    expect(result.content).toBe("README.md:1: The Router routes (things).");
  });

  it("returns an error value for an invalid regular expression", async () => {
    const result = await search({ pattern: "(unclosed" });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("Invalid regular expression");
  });

  it("filters by glob on file names and on paths", async () => {
    const byName = await search({ pattern: "router", glob: "*.{ts,md}" });
    expect(byName.content).not.toContain("strings.js");
    expect(byName.content).toContain("README.md");
    const byPath = await search({ pattern: "router", glob: "src/**/*.js" });
    expect(byPath.content).toBe("src/util/strings.js:1: // TODO: router helpers");
  });

  it("matches file paths with target files, relative to the searched folder", async () => {
    const all = await search({ pattern: "\\.ts$", target: "files" });
    expect(all.content.split("\n")).toEqual(["src/app.ts", "src/router.ts"]);
    const inSrc = await search({ pattern: "^util/", target: "files", path: "src" });
    expect(inSrc.content).toBe("src/util/strings.js");
  });

  it("skips .git, node_modules, binary and oversized files", async () => {
    await put(".git/config", "router = yes\n");
    await put("node_modules/dep/index.js", "router\n");
    await put("logo.bin", Buffer.concat([Buffer.from("router"), Buffer.from([0, 1, 2])]));
    await put("big.txt", `${"filler\n".repeat(320_000)}router\n`);
    const result = await search({ pattern: "router", glob: "*.{js,bin,txt}" });
    expect(result.content).toBe("src/util/strings.js:1: // TODO: router helpers");
  });

  it("trims long matching lines", async () => {
    await put("wide.txt", `   ${"router ".repeat(100)}\n`);
    const result = await search({ pattern: "router", path: "wide.txt" });
    const hit = result.content;
    expect(hit.startsWith("wide.txt:1: router")).toBe(true);
    expect(hit.length).toBeLessThan("wide.txt:1: ".length + 300 + 5);
    expect(hit.endsWith("…")).toBe(true);
  });

  it("caps results and says more are not shown", async () => {
    await put("many.txt", "hit\n".repeat(30));
    const result = await search({ pattern: "hit", max_results: 10 });
    const lines = result.content.split("\n");
    expect(lines).toHaveLength(11);
    expect(lines[9]).toBe("many.txt:10: hit");
    expect(lines[10]).toContain("More results not shown");
    expect(result.details).toMatchObject({ matches: 10, truncated: true });
  });

  it("does not report truncation when the matches fit exactly", async () => {
    await put("many.txt", "hit\n".repeat(10));
    const result = await search({ pattern: "hit", max_results: 10 });
    expect(result.content).not.toContain("More results");
  });

  it("says when nothing matches", async () => {
    const result = await search({ pattern: "nothing-like-this" });
    expect(result.isError).toBeUndefined();
    expect(result.content).toContain("No matches");
  });

  it("stops when the signal is aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await search({ pattern: "router" }, contextWith(controller.signal));
    expect(result.isError).toBe(true);
    expect(result.content).toContain("cancelled");
  });

  it("refuses folders outside the workspace and does not follow symlinks out", async () => {
    const outside = path.join(base, "outside");
    await fs.mkdir(outside);
    await fs.writeFile(path.join(outside, "secret.txt"), "router secret\n");
    await fs.symlink(outside, path.join(ws.root, "escape"));
    await fs.symlink(path.join(outside, "secret.txt"), path.join(ws.root, "leak.txt"));
    for (const requested of ["../outside", outside, "escape"]) {
      const result = await search({ pattern: "router", path: requested });
      expect(result.isError).toBe(true);
      expect(result.content).toContain("outside the workspace");
    }
    const everything = await search({ pattern: "secret" });
    expect(everything.content).toContain("No matches");
  });

  it("reports a missing folder", async () => {
    const result = await search({ pattern: "x", path: "nowhere" });
    expect(result.isError).toBe(true);
    expect(result.content).toBe("nowhere does not exist.");
  });
});

describe("search_files with a pattern that backtracks for minutes", () => {
  const CATASTROPHIC = "^(a+)+$";

  /** Sorted first, so its hit is reported before the worker reaches the line that backtracks. */
  async function putHitThenTrap(): Promise<void> {
    await put("trap/1-hit.txt", "aaaa\n");
    await put("trap/2-evil.txt", `${"a".repeat(32)}!\n`);
  }

  interface WatchedWorkers {
    startWorker: (job: SearchJob) => Worker;
    started: Worker[];
    exits: number[];
    onFirstProgress: (listener: () => void) => void;
  }

  /** Starts real search workers and watches them, so a test can see their progress and check that they exited. */
  function watchedWorkers(): WatchedWorkers {
    const started: Worker[] = [];
    const exits: number[] = [];
    let progressListener: (() => void) | undefined;
    return {
      started,
      exits,
      onFirstProgress: (listener) => {
        progressListener = listener;
      },
      startWorker: (job) => {
        const worker = startSearchWorker(job);
        worker.on("exit", (code: number) => exits.push(code));
        worker.on("message", (message: { kind: string }) => {
          if (message.kind !== "progress") return;
          progressListener?.();
          progressListener = undefined;
        });
        started.push(worker);
        return worker;
      },
    };
  }

  it("stops at its own time limit with an error value while the event loop keeps running", async () => {
    await putHitThenTrap();
    const workers = watchedWorkers();
    const tool = searchFilesTool(ws, { timeLimitMs: 1_000, startWorker: workers.startWorker });
    let ticks = 0;
    const ticker = setInterval(() => {
      ticks += 1;
    }, 1);
    try {
      const result = await tool.handler({ pattern: CATASTROPHIC, path: "trap" }, contextWith());
      expect(ticks).toBeGreaterThan(0);
      expect(result.isError).toBe(true);
      expect(result.content).toContain("search stopped: the pattern took too long — simplify the regex");
      expect(result.details).toMatchObject({ stopped: "time-limit" });
    } finally {
      clearInterval(ticker);
    }
    expect(workers.started).toHaveLength(1);
    expect(workers.exits).toHaveLength(1);
    expect(workers.started[0]?.threadId).toBe(-1);
  });

  it("terminates the search worker when the call's signal aborts mid-match", async () => {
    await putHitThenTrap();
    const workers = watchedWorkers();
    const tool = searchFilesTool(ws, { startWorker: workers.startWorker });
    const controller = new AbortController();
    // The abort comes from a timer that only a free main thread can run, after the worker has moved on to the trap.
    let ticksWhileMatching = 0;
    let ticker: NodeJS.Timeout | undefined;
    workers.onFirstProgress(() => {
      ticker = setInterval(() => {
        ticksWhileMatching += 1;
        if (ticksWhileMatching < 3) return;
        // Stopped here: terminating the worker takes a moment, and a busy machine would tick again meanwhile.
        clearInterval(ticker);
        controller.abort(new Error("timed out"));
      }, 10);
    });
    try {
      const result = await tool.handler({ pattern: CATASTROPHIC, path: "trap" }, contextWith(controller.signal));
      expect(ticksWhileMatching).toBe(3);
      expect(result.isError).toBe(true);
      expect(result.content).toContain("search stopped: the pattern took too long — simplify the regex");
      expect(result.content).toContain("1 files scanned, 1 matches found so far");
      expect(result.details).toMatchObject({ stopped: "aborted", matches: 1, filesScanned: 1 });
    } finally {
      clearInterval(ticker);
    }
    expect(workers.exits).toHaveLength(1);
    expect(workers.started[0]?.threadId).toBe(-1);
  });

  it("leaves no worker behind after a normal search", async () => {
    const workers = watchedWorkers();
    const result = await searchFilesTool(ws, { startWorker: workers.startWorker }).handler(
      { pattern: "router", path: "src/router.ts" },
      contextWith(),
    );
    expect(result.content).toBe("src/router.ts:1: export class Router {");
    expect(workers.exits).toHaveLength(1);
    expect(workers.started[0]?.threadId).toBe(-1);
  });

  it("matches very long lines on their start only, and says so", async () => {
    const filler = "x".repeat(15_000);
    await put("long.txt", `needle ${filler}\n${filler} needle\n`);
    const result = await search({ pattern: "needle", path: "long.txt" });
    const hits = result.content.split("\n");
    expect(hits).toHaveLength(1);
    expect(hits[0]?.startsWith("long.txt:1: needle x")).toBe(true);
    expect(hits[0]).toContain("[long line: only its first 10000 characters were searched]");
    expect(result.details).toMatchObject({ matches: 1, longLinesCut: 1 });
  });

  it("applies a hostile glob without stalling", async () => {
    await put(`${"a".repeat(200)}.txt`, "router\n");
    const result = await search({ pattern: "router", glob: `${"*a".repeat(30)}*b` });
    expect(result.isError).toBeUndefined();
    expect(result.content).toContain("No matches");
  });
});
