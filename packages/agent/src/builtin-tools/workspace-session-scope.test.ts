import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../observability/logger.js";
import type { ToolContext } from "../tools/types.js";
import { listDirectoryTool } from "./list-directory.js";
import { readFileTool } from "./read-file.js";
import { createWorkspace, resolveInWorkspace, type Workspace } from "./workspace.js";

let base: string;
let sessions: string;
let ws: Workspace;

beforeEach(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "hermes-")));
  sessions = path.join(base, "state", "sessions");
  for (const [session, text] of [
    ["alpha", "alpha's terminal output\n"],
    ["beta", "beta's fetched page\n"],
    ["odd_id_", "output of a session with an unusual id\n"],
  ] as const) {
    await fs.mkdir(path.join(sessions, session, "tool-results"), { recursive: true });
    await fs.writeFile(path.join(sessions, session, "tool-results", "call-1.txt"), text);
  }
  ws = await createWorkspace(path.join(base, "ws"), { sessionScopedRoot: sessions });
});

afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

function context(sessionId: string): ToolContext {
  return { signal: new AbortController().signal, toolCallId: "call-1", sessionId, logger: silentLogger };
}

const spilled = (session: string): string => path.join(sessions, session, "tool-results", "call-1.txt");

function refusal(result: Awaited<ReturnType<typeof resolveInWorkspace>>): string {
  if (result.ok) throw new Error(`expected a refusal, got ${result.path}`);
  return result.error;
}

describe("resolveInWorkspace with a session-scoped root", () => {
  it("stores the root's real path, even when it does not exist yet", async () => {
    expect(ws.sessionScopedRoot).toBe(sessions);
    const later = await createWorkspace(path.join(base, "ws"), { sessionScopedRoot: path.join(base, "fresh", "sessions") });
    expect(later.sessionScopedRoot).toBe(path.join(base, "fresh", "sessions"));
    expect((await createWorkspace(path.join(base, "ws"))).sessionScopedRoot).toBeUndefined();
  });

  it("lets a session read its own folder and the files in it", async () => {
    expect(await resolveInWorkspace(ws, spilled("alpha"), "read", { sessionId: "alpha" })).toMatchObject({ ok: true, path: spilled("alpha") });
    expect(await resolveInWorkspace(ws, path.join(sessions, "alpha"), "read", { sessionId: "alpha" })).toMatchObject({ ok: true });
  });

  it("refuses other sessions' folders, the root itself and callers without a session, naming the allowed folder", async () => {
    const other = refusal(await resolveInWorkspace(ws, spilled("beta"), "read", { sessionId: "alpha" }));
    expect(other).toContain("another session");
    expect(other).toContain(path.join(sessions, "alpha"));
    expect(other).not.toContain("beta's");
    refusal(await resolveInWorkspace(ws, sessions, "read", { sessionId: "alpha" }));
    refusal(await resolveInWorkspace(ws, path.join(sessions, "alpha-2", "x.txt"), "read", { sessionId: "alpha" }));
    refusal(await resolveInWorkspace(ws, spilled("alpha"), "read"));
  });

  it("refuses '..' out of the own folder and symbolic links into another session's", async () => {
    refusal(await resolveInWorkspace(ws, path.join(sessions, "alpha", "..", "beta", "tool-results", "call-1.txt"), "read", { sessionId: "alpha" }));
    await fs.symlink(path.join(sessions, "beta"), path.join(sessions, "alpha", "peek"));
    const viaLink = refusal(await resolveInWorkspace(ws, path.join(sessions, "alpha", "peek", "tool-results", "call-1.txt"), "read", { sessionId: "alpha" }));
    expect(viaLink).toContain("through a symbolic link");
  });

  it("keeps the root read-only, also for the own session", async () => {
    expect(refusal(await resolveInWorkspace(ws, path.join(sessions, "alpha", "new.txt"), "write", { sessionId: "alpha" }))).toContain("read-only");
  });

  it("maps the session id to its folder name the way the spill writer does", async () => {
    expect(await resolveInWorkspace(ws, spilled("odd_id_"), "read", { sessionId: "odd/id?" })).toMatchObject({ ok: true });
  });

  it("wins over a plain read-only root at the same place", async () => {
    const both = await createWorkspace(path.join(base, "ws"), { readOnlyRoots: [sessions], sessionScopedRoot: sessions });
    refusal(await resolveInWorkspace(both, spilled("beta"), "read", { sessionId: "alpha" }));
  });
});

describe("file tools in a session-scoped root", () => {
  it("read_file reads the own session's saved output and refuses another's", async () => {
    const read = readFileTool(ws);
    expect((await read.handler({ path: spilled("alpha") }, context("alpha"))).content).toContain("alpha's terminal output");
    const other = await read.handler({ path: spilled("beta") }, context("alpha"));
    expect(other).toMatchObject({ isError: true, content: expect.stringContaining("another session") });
    expect(other.content).not.toContain("beta's fetched page");
  });

  it("list_directory lists the own folder but neither the root nor another session", async () => {
    const list = listDirectoryTool(ws);
    const own = await list.handler({ path: path.join(sessions, "alpha"), recursive: true }, context("alpha"));
    expect(own.content).toContain("tool-results/call-1.txt");
    for (const folder of [sessions, path.join(sessions, "beta")]) {
      const refused = await list.handler({ path: folder, recursive: true }, context("alpha"));
      expect(refused.isError).toBe(true);
      expect(refused.content).not.toContain("call-1.txt");
      expect(refused.content).not.toContain("beta/");
    }
  });
});
