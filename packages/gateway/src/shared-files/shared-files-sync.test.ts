import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createSkillTools, defaultSkillLocations, defineTool, HermesAgent, silentLogger, ToolRegistry, type AnyToolDefinition, type ToolContext } from "@hermes/agent";
import { fauxAssistantMessage, fauxToolCall, registerFauxProvider, type ToolResultMessage } from "@mariozechner/pi-ai";
import { Type } from "@sinclair/typebox";
import { openStore, type SharedFileRepository, type Store } from "@hermes/store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../test/support/test-database.js";
import { HookRegistry } from "../hooks/hook-registry.js";
import { DEFAULT_SESSION_SCOPE } from "../core/session-key.js";
import type { InboundMessage } from "../core/inbound.js";
import { SharedFilesSync } from "./shared-files-sync.js";
import { sharedFilesFor } from "./shared-files-wiring.js";

/** Two machines: each its own HERMES_HOME and store connection, sharing one PostgreSQL database. */
interface Machine {
  home: string;
  store: Store;
  sync: SharedFilesSync;
}

let root = "";
let bundled = "";
let database: TestDatabase;
const stores: Store[] = [];

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "hermes-shared-"));
  bundled = path.join(root, "bundled-skills");
  await mkdir(bundled);
  database = await createTestDatabase();
});
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  await database.drop();
  await rm(root, { recursive: true, force: true });
});

async function machine(name: string): Promise<Machine> {
  const home = path.join(root, name);
  await mkdir(home);
  const store = await openStore({ file: path.join(home, "state.db"), databaseUrl: database.url });
  stores.push(store);
  return { home, store, sync: new SharedFilesSync({ files: store.sharedFiles, home, logger: silentLogger }) };
}

const context: ToolContext = { signal: new AbortController().signal, toolCallId: "call-1", sessionId: "session-1", logger: silentLogger };

function skillTools(on: Machine): { manage: AnyToolDefinition; list: AnyToolDefinition; invalidate: () => void; sync: SharedFilesSync } {
  const created = createSkillTools({ ...defaultSkillLocations(on.home, bundled), onSkillChanged: on.sync.onSkillChanged });
  if (!created.ok) throw new Error(created.error);
  const tool = (name: string): AnyToolDefinition => {
    const found = created.tools.find((candidate) => candidate.name === name);
    if (!found) throw new Error(`no ${name}`);
    return found;
  };
  on.sync.onSkillsPulled(() => created.catalog.invalidate());
  return { manage: tool("skill_manage"), list: tool("skills_list"), invalidate: () => created.catalog.invalidate(), sync: on.sync };
}

async function call(tool: AnyToolDefinition, args: Record<string, unknown>): Promise<string> {
  const result = await tool.handler(args as never, context);
  return typeof result.content === "string" ? result.content : JSON.stringify(result.content);
}

const SKILL = "---\nname: brew-tea\ndescription: Brews a good cup of tea.\n---\n\n# Brew tea\n\nBoil water, steep three minutes.\n";

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

describe("shared files between two HERMES_HOMEs on one PostgreSQL database", () => {
  it("a skill made through one home's skill_manage is in the other's skills_list after its next pull, and so are its edits and its deletion", async () => {
    const a = await machine("a");
    const b = await machine("b");
    const onA = skillTools(a);
    const onB = skillTools(b);
    expect(await call(onB.list, {})).not.toContain("brew-tea");

    expect(await call(onA.manage, { action: "create", name: "brew-tea", content: SKILL })).toContain('Created skill "brew-tea"');
    expect(await call(onA.manage, { action: "write_file", name: "brew-tea", file_path: "references/teas.md", file_content: "Assam, Darjeeling\n" })).toContain("Wrote");
    expect(await b.sync.pull()).toEqual({ ok: true, written: ["skills/brew-tea/SKILL.md", "skills/brew-tea/references/teas.md"], removed: [] });
    expect(await call(onB.list, {})).toContain("brew-tea");
    expect(await readFile(path.join(b.home, "skills", "brew-tea", "references", "teas.md"), "utf8")).toBe("Assam, Darjeeling\n");

    // Nothing changed: the next pull writes nothing (and a's own change coming back to a is already there).
    expect(await b.sync.pull()).toEqual({ ok: true, written: [], removed: [] });
    expect(await a.sync.pull()).toEqual({ ok: true, written: [], removed: [] });

    await call(onA.manage, { action: "patch", name: "brew-tea", old_string: "three minutes", new_string: "four minutes" });
    await call(onA.manage, { action: "remove_file", name: "brew-tea", file_path: "references/teas.md" });
    await b.sync.pull();
    expect(await readFile(path.join(b.home, "skills", "brew-tea", "SKILL.md"), "utf8")).toContain("four minutes");
    expect(await exists(path.join(b.home, "skills", "brew-tea", "references"))).toBe(false);

    // b changes it back: a follows.
    await call(onB.manage, { action: "delete", name: "brew-tea" });
    expect((await a.sync.pull()).ok).toBe(true);
    expect(await exists(path.join(a.home, "skills", "brew-tea"))).toBe(false);
    expect(await call(onA.list, {})).not.toContain("brew-tea");
  });

  it("a skill change on a home that has not pulled another's newer files yet sends only its own change, not its stale copies", async () => {
    const a = await machine("a");
    const b = await machine("b");
    const onA = skillTools(a);
    const onB = skillTools(b);
    await call(onA.manage, { action: "create", name: "brew-tea", content: SKILL });
    await call(onA.manage, { action: "write_file", name: "brew-tea", file_path: "references/teas.md", file_content: "Assam\n" });
    await b.sync.pull();

    // a changes one file and adds another while b, in a run that started before, patches SKILL.md.
    await call(onA.manage, { action: "write_file", name: "brew-tea", file_path: "references/teas.md", file_content: "Assam, Darjeeling\n" });
    await call(onA.manage, { action: "write_file", name: "brew-tea", file_path: "templates/order.md", file_content: "One pot\n" });
    expect(await call(onB.manage, { action: "patch", name: "brew-tea", old_string: "three minutes", new_string: "four minutes" })).toContain("Patched");

    await a.sync.pull();
    const onDisk = (home: string, file: string) => readFile(path.join(home, "skills", "brew-tea", file), "utf8");
    expect(await onDisk(a.home, "SKILL.md")).toContain("four minutes");
    expect(await onDisk(a.home, "references/teas.md")).toBe("Assam, Darjeeling\n");
    expect(await onDisk(a.home, "templates/order.md")).toBe("One pot\n");
    await b.sync.pull();
    expect(await onDisk(b.home, "references/teas.md")).toBe("Assam, Darjeeling\n");
    expect(await onDisk(b.home, "templates/order.md")).toBe("One pot\n");

    // A removal made on b after its pull is still one.
    await call(onB.manage, { action: "remove_file", name: "brew-tea", file_path: "templates/order.md" });
    await a.sync.pull();
    expect(await exists(path.join(a.home, "skills", "brew-tea", "templates"))).toBe(false);
  });

  it("a pull goes on from the latest version, so the next asks nothing about the session files written since the last skill change", async () => {
    const worker = await machine("worker");
    const asked: number[] = [];
    const files = { ...worker.store.sharedFiles, changedSince: (version: number, prefixes: readonly string[]) => (asked.push(version), worker.store.sharedFiles.changedSince(version, prefixes)) };
    const sync = new SharedFilesSync({ files, home: worker.home, logger: silentLogger });
    await worker.store.sharedFiles.put("skills/brew-tea/SKILL.md", Buffer.from(SKILL));
    const spilled = await Promise.all([1, 2, 3].map((n) => worker.store.sharedFiles.put(`sessions/s${n}/tool-results/x.txt`, Buffer.from("long"), { sessionKey: "k" })));
    expect((await sync.pull()).ok).toBe(true);
    // Nothing written since: only the latest version is asked for.
    expect(await sync.pull()).toEqual({ ok: true, written: [], removed: [] });
    expect(asked).toEqual([0]);
    await worker.store.sharedFiles.put("skills/brew-tea/references/teas.md", Buffer.from("Assam\n"));
    expect(await sync.pull()).toEqual({ ok: true, written: ["skills/brew-tea/references/teas.md"], removed: [] });
    expect(asked).toEqual([0, Math.max(...spilled.map((put) => (put.ok ? put.version : 0)))]);
  });

  it("a skill change whose push failed goes to the database with the next pull", async () => {
    const a = await machine("a");
    let failing = true;
    const put: SharedFileRepository["put"] = (...args) => (failing ? Promise.reject(new Error("connection lost")) : a.store.sharedFiles.put(...args));
    const onA = skillTools({ ...a, sync: new SharedFilesSync({ files: { ...a.store.sharedFiles, put }, home: a.home, logger: silentLogger }) });
    expect(await call(onA.manage, { action: "create", name: "brew-tea", content: SKILL })).toContain('Created skill "brew-tea"');
    expect(await a.store.sharedFiles.get("skills/brew-tea/SKILL.md")).toBeUndefined();

    failing = false;
    const b = await machine("b");
    expect((await onA.sync.pull()).ok).toBe(true);
    expect(await b.sync.pull()).toMatchObject({ ok: true, written: ["skills/brew-tea/SKILL.md"] });
  });

  it("hook state written to the database is honoured by a gateway's hook registry on another home after its pull", async () => {
    const operator = await machine("operator");
    const gateway = await machine("gateway");
    const hooksDir = path.join(root, "bundled-hooks", "tracer");
    const trace = path.join(root, "trace.txt");
    await mkdir(hooksDir, { recursive: true });
    await writeFile(path.join(hooksDir, "HOOK.yaml"), "name: tracer\ndescription: traces\nevents: [message:received]\n");
    await writeFile(path.join(hooksDir, "handler.mjs"), `import { appendFileSync } from "node:fs";\nexport default () => { appendFileSync(${JSON.stringify(trace)}, "ran\\n"); };\n`);
    const stateFile = path.join(gateway.home, "hooks", "state.json");
    const registry = await HookRegistry.load({ bundledDir: path.dirname(hooksDir), operatorDir: path.join(gateway.home, "hooks"), stateFile, logger: silentLogger });
    const event = { type: "message:received", timestamp: 1, text: "hi" } as const;

    await mkdir(path.join(operator.home, "hooks"), { recursive: true });
    await writeFile(path.join(operator.home, "hooks", "state.json"), JSON.stringify({ disabled: ["tracer"], enabled: [] }));
    await operator.sync.pushFile("hooks/state.json");
    await gateway.sync.pull();
    await registry.emit(event);
    expect(await exists(trace)).toBe(false);

    await writeFile(path.join(operator.home, "hooks", "state.json"), JSON.stringify({ disabled: [], enabled: ["tracer"] }));
    await operator.sync.pushFile("hooks/state.json");
    await gateway.sync.pull();
    await registry.emit(event);
    expect(await readFile(trace, "utf8")).toBe("ran\n");
  });

  it("an attachment saved by the gateway on one home is restored for the session's run on another, under the same workspace path", async () => {
    const gateway = await machine("gateway");
    const worker = await machine("worker");
    const shared = sharedFilesFor(configOf(gateway.home), { store: gateway.store, logger: silentLogger });
    if (!shared) throw new Error("expected shared files with a database URL");
    const saved = path.join(gateway.home, "workspace", "attachments", "telegram", "telegram-42-7-1-photo.jpg");
    await mkdir(path.dirname(saved), { recursive: true });
    await writeFile(saved, Buffer.from([0xff, 0xd8, 0xff, 0, 1, 2]));

    const message = await shared.shareInbound(inbound({ kind: "image", name: "photo.jpg", localPath: saved, sizeBytes: 6 }));
    expect(message.attachments).toEqual([{ kind: "image", name: "photo.jpg", localPath: "attachments/telegram/telegram-42-7-1-photo.jpg", sizeBytes: 6 }]);
    expect(message.text).toBe("look at this");

    const key = "agent:main:telegram:dm:42";
    expect(await worker.sync.restoreSession(key)).toEqual({ ok: true, restored: 1 });
    const restored = await readFile(path.join(worker.home, "workspace", message.attachments[0]?.localPath ?? ""));
    expect(restored.equals(Buffer.from([0xff, 0xd8, 0xff, 0, 1, 2]))).toBe(true);
    // Already there: not fetched again.
    expect(await worker.sync.restoreSession(key)).toEqual({ ok: true, restored: 0 });
    expect(await worker.sync.restoreSession("agent:main:telegram:dm:someone-else")).toEqual({ ok: true, restored: 0 });
  });

  it("an attachment over the size cap is not shared, and the message tells the agent it was refused", async () => {
    const gateway = await machine("gateway");
    const shared = sharedFilesFor({ ...configOf(gateway.home), maxAttachmentBytes: 1024 * 1024 }, { store: gateway.store, logger: silentLogger });
    const saved = path.join(gateway.home, "workspace", "attachments", "telegram", "big.bin");
    await mkdir(path.dirname(saved), { recursive: true });
    await writeFile(saved, Buffer.alloc(2 * 1024 * 1024));

    const message = await shared?.shareInbound(inbound({ kind: "document", name: "big.bin", localPath: saved }));
    expect(message?.attachments).toEqual([{ kind: "document", name: "big.bin" }]);
    expect(message?.text).toBe(
      'look at this\n[The file "big.bin" (2 MB) was not accepted: files larger than 1 MB are refused. Let the user know it was too large.]',
    );
    expect(await gateway.store.sharedFiles.listForSession("agent:main:telegram:dm:42")).toEqual([]);
  });

  it("a tool output spilled by a run on one home is read with read_file by the session's next run on another", async () => {
    const first = await machine("worker-1");
    const second = await machine("worker-2");
    const key = "agent:main:telegram:dm:42";
    const output = `BEGIN ${"log line\n".repeat(20_000)}END`;
    const faux = registerFauxProvider();
    try {
      const agentOn = (on: Machine) => {
        const tools = new ToolRegistry();
        tools.register(defineTool({ name: "dump_logs", description: "dumps logs", parameters: Type.Object({}), concurrency: "parallel-safe", handler: async () => ({ content: output }) }));
        const workspace = path.join(on.home, "workspace");
        return HermesAgent.create({
          model: { model: faux.getModel(), apiKey: "x" },
          tools,
          builtinTools: { enable: ["read_file"], workspaceRoot: workspace },
          stateDir: on.home,
          resultBudget: { onSpill: on.sync.onSpill, notePathsRelativeTo: workspace },
        });
      };
      faux.setResponses([fauxAssistantMessage([fauxToolCall("dump_logs", {})], { stopReason: "toolUse" }), fauxAssistantMessage("saved")]);
      const ran = await (await agentOn(first)).run("dump the logs", { sessionId: "session-9", caller: { sessionKey: key } });
      const note = toolResults(ran.newMessages)[0] ?? "";
      const saved = /was saved to (\S+);/.exec(note)?.[1] ?? "";
      expect(saved).toMatch(/^\.\.\/sessions\/session-9\/tool-results\/.+\.txt$/);
      expect(note).not.toContain(first.home);

      expect(await second.sync.restoreSession(key)).toEqual({ ok: true, restored: 1 });
      faux.setResponses([fauxAssistantMessage([fauxToolCall("read_file", { path: saved, limit: 1 })], { stopReason: "toolUse" }), fauxAssistantMessage("read")]);
      const next = await (await agentOn(second)).run("what did the logs start with?", { sessionId: "session-9", caller: { sessionKey: key } });
      expect(toolResults(next.newMessages)[0]).toContain("BEGIN log line");
    } finally {
      faux.unregister();
    }
  });

  it("keeps the saved output of a run without a session key on its own machine (no session could restore it)", async () => {
    const worker = await machine("worker");
    await worker.sync.onSpill({ file: path.join(worker.home, "sessions", "s", "tool-results", "x.txt"), content: "long", sessionId: "s" });
    expect(await worker.store.sharedFiles.get("sessions/s/tool-results/x.txt")).toBeUndefined();
    await expect(worker.sync.onSpill({ file: path.join(root, "elsewhere.txt"), content: "long", sessionId: "s", sessionKey: "k" })).rejects.toThrow("outside HERMES_HOME");
  });

  it("changes nothing without a database URL", () => {
    expect(sharedFilesFor({ ...configOf(root), databaseUrl: undefined }, { store: { sharedFiles: {} as Store["sharedFiles"] }, logger: silentLogger })).toBeUndefined();
  });
});

function toolResults(messages: ReadonlyArray<{ role: string }>): string[] {
  return messages
    .filter((message): message is ToolResultMessage => message.role === "toolResult")
    .map((message) => message.content.map((part) => (part.type === "text" ? part.text : "")).join(""));
}

function configOf(home: string) {
  return { databaseUrl: database.url, home, paths: { workspace: path.join(home, "workspace") } as never, sessionScope: DEFAULT_SESSION_SCOPE, retention: { days: 30 } };
}

function inbound(attachment: InboundMessage["attachments"][number]): InboundMessage {
  return {
    platform: "telegram",
    chat: { id: "42", type: "dm" },
    user: { id: "42", name: "Ada" },
    messageId: "7",
    text: "look at this",
    attachments: [attachment],
    mentionedBot: false,
    timestamp: 1,
  };
}
