import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { silentLogger, type ToolStartEvent } from "@hermes/agent";
import { openStore, type DeliveryRecord, type Store } from "@hermes/store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CommandContext } from "../commands/types.js";
import { findCommand } from "../commands/registry.js";
import type { InboundMessage } from "../core/inbound.js";
import { inbound } from "../core/testing.js";
import { RunAbortedError } from "../queue/types.js";
import { createApprovalGate } from "./approval-gate.js";
import type { ApprovalsPort } from "./approval-types.js";

let home: string;
let store: Store;
let clock: number;
let announced: number[];
let outcomes: string[];
let inboundId: number;

const SESSION_KEY = "agent:main:telegram:dm:100";
const asker = inbound({ text: "list the files" });

beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), "hermes-approval-"));
  store = await openStore({ file: path.join(home, "state.db") });
  clock = 1_700_000_000_000;
  announced = [];
  outcomes = [];
  inboundId = (await store.inbound.recordIfNew({ platform: "telegram", messageId: "m1", payload: JSON.stringify(asker), sessionKey: SESSION_KEY, status: "running" })).record.id;
});
afterEach(async () => {
  await store.close();
  await rm(home, { recursive: true, force: true });
});

function gate(approvals: ApprovalsPort = store.approvals, tools = ["terminal"]) {
  return createApprovalGate({
    approvals,
    deliveries: store.deliveries,
    tools: new Set(tools),
    timeoutMs: 60_000,
    announce: (id) => announced.push(id),
    logger: silentLogger,
    now: () => clock,
    pollMs: 2,
    onOutcome: (tool, outcome) => outcomes.push(`${tool}:${outcome}`),
  });
}

function run(signal: AbortSignal = new AbortController().signal, sessionId = "s1", message: InboundMessage = asker) {
  return { inboundId, sessionKey: SESSION_KEY, sessionId, message, target: { platform: "telegram", chatId: "100" }, signal };
}

/** The store's approvals, with a promise kept once a gate reads a decision back (it then waits on its request). */
function watchedApprovals(): { approvals: ApprovalsPort; waiting: Promise<void> } {
  let reached = (): void => undefined;
  const waiting = new Promise<void>((resolve) => (reached = resolve));
  return {
    approvals: {
      ...store.approvals,
      get: (id) => {
        reached();
        return store.approvals.get(id);
      },
    },
    waiting,
  };
}

const terminalCall: ToolStartEvent = { step: 1, toolCallId: "c1", toolName: "terminal", arguments: { command: "ls -la ```x```" } };

async function command(name: "approve" | "deny", args: string, from: InboundMessage, editPressedMessage?: (text: string) => Promise<boolean>): Promise<string> {
  const definition = findCommand(name);
  if (!definition) throw new Error(`no /${name}`);
  const unused = async (): Promise<never> => {
    throw new Error("not used by /approve or /deny");
  };
  const context: CommandContext = {
    message: from,
    sessionKey: SESSION_KEY,
    args,
    store,
    queue: { enqueue: unused, stop: unused },
    hooks: { emit: unused },
    now: () => clock,
    models: { primary: "test/model" },
    checkModel: () => undefined,
    resubmit: unused,
    withSessionLock: unused,
    compress: unused,
    followUp: unused,
    authorization: "allowlist",
    sharedSession: false,
    approvals: store.approvals,
    ...(editPressedMessage && { editPressedMessage }),
  };
  return definition.run(context);
}

/** Waits until the gate's prompt is in the outbox and returns it. */
async function prompt() {
  return (await prompts(1))[0] as DeliveryRecord;
}

/** Waits until `count` approval prompts are in the outbox and returns them. */
async function prompts(count: number): Promise<DeliveryRecord[]> {
  for (let i = 0; i < 2_500; i += 1) {
    const queued = (await store.deliveries.pending()).filter((d) => d.buttons !== undefined);
    if (queued.length >= count) return queued;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error(`fewer than ${count} approval prompts were queued`);
}

describe("asking before a tool call", () => {
  it("lets other tools through without asking", async () => {
    expect(await gate()(run())({ ...terminalCall, toolName: "think", arguments: {} })).toBeUndefined();
    expect(await store.deliveries.pending()).toEqual([]);
  });

  it("sends the command with three buttons, and runs it once the person who asked approves", async () => {
    const decision = gate()(run())(terminalCall);
    const sent = await prompt();
    expect(sent.kind).toBe("notice");
    expect(sent.inboundId).toBe(inboundId);
    expect(announced).toEqual([inboundId]);
    // The command shows in a fence longer than the backticks inside it.
    expect(sent.text).toContain("````\nls -la ```x```\n````");
    const id = /\/approve ([a-z0-9]+)/.exec(sent.buttons?.[0]?.value ?? "")?.[1] ?? "";
    expect(sent.buttons).toEqual([
      { label: "Approve", value: `/approve ${id}`, style: "primary" },
      { label: "Approve for this conversation", value: `/approve ${id} always` },
      { label: "Deny", value: `/deny ${id}`, style: "danger" },
    ]);
    expect(await command("approve", "", inbound({ user: { id: "8" } }))).toBe("Only the person whose message started this can answer it.");
    expect(await command("approve", "", asker)).toBe("Approved: the `terminal` call runs now.");
    expect(await decision).toBeUndefined();
    expect(await command("deny", id, asker)).toBe("This request was already approved.");
    expect(outcomes).toEqual(["terminal:approved"]);
  });

  it("tells the model the call was denied", async () => {
    const decision = gate()(run())(terminalCall);
    const id = /\/deny ([a-z0-9]+)/.exec((await prompt()).buttons?.[2]?.value ?? "")?.[1] ?? "";
    expect(await command("deny", id, asker)).toBe("Denied: the `terminal` call will not run.");
    expect(await decision).toEqual({ block: true, reason: expect.stringContaining("denied this terminal call") });
  });

  it("counts no answer within the timeout as a denial, and says so in the chat", async () => {
    const decision = gate()(run())(terminalCall);
    await prompt();
    clock += 60_000;
    expect(await decision).toEqual({ block: true, reason: expect.stringContaining("did not answer the approval request within 1 minute") });
    const texts = (await store.deliveries.pending()).map((d) => d.text);
    expect(texts).toContain("No answer within 1 minute: the `terminal` call was not run.");
    expect(await command("approve", "", asker)).toBe(NOTHING);
    expect(outcomes).toEqual(["terminal:timed_out"]);
  });

  it("asks once per conversation after 'Approve for this conversation'", async () => {
    const first = gate()(run())(terminalCall);
    const always = (await prompt()).buttons?.[1]?.value ?? "";
    expect(await command("approve", always.replace("/approve ", ""), asker)).toBe("Approved for this conversation: your `terminal` calls run without asking until /new.");
    expect(await first).toBeUndefined();
    expect(await gate()(run())({ ...terminalCall, toolCallId: "c2" })).toBeUndefined();
    expect((await store.deliveries.pending()).filter((d) => d.buttons !== undefined)).toHaveLength(1);
    // A new conversation (another session id) asks again.
    const fresh = gate()(run(new AbortController().signal, "s2"))(terminalCall);
    expect(await prompts(2)).toHaveLength(2);
    await command("deny", "", asker);
    expect(await fresh).toMatchObject({ block: true });
  });

  it("asks someone else in a shared conversation even after the first person approved it for the conversation", async () => {
    const first = gate()(run())(terminalCall);
    const always = (await prompt()).buttons?.[1]?.value ?? "";
    await command("approve", always.replace("/approve ", ""), asker);
    expect(await first).toBeUndefined();

    const bo = inbound({ user: { id: "8", name: "Bo" } });
    const theirs = gate()(run(new AbortController().signal, "s1", bo))({ ...terminalCall, toolCallId: "c2" });
    const [, second] = await prompts(2);
    expect(second?.text).toContain("Approve this `terminal` call?");
    expect(await command("approve", "", asker)).toBe("Only the person whose message started this can answer it.");
    expect(await command("deny", "", bo)).toBe("Denied: the `terminal` call will not run.");
    expect(await theirs).toMatchObject({ block: true });
  });

  it("closes the request when the person stops the run, but keeps it for the re-run after a shutdown", async () => {
    const stopped = new AbortController();
    const decision = gate()(run(stopped.signal))(terminalCall);
    await prompt();
    stopped.abort(new RunAbortedError("stop"));
    expect(await decision).toEqual({ block: true, reason: expect.stringContaining("stopped") });
    expect(outcomes).toEqual(["terminal:stopped"]);
    expect(await command("approve", "", asker)).toBe(NOTHING);

    const shutdown = new AbortController();
    const before = watchedApprovals();
    const interrupted = gate(before.approvals)(run(shutdown.signal))({ ...terminalCall, arguments: { command: "pwd" } });
    await before.waiting;
    shutdown.abort(new RunAbortedError("shutdown"));
    await interrupted;
    const asked = (await store.deliveries.pending()).filter((d) => d.buttons !== undefined).length;
    const after = watchedApprovals();
    const rerun = gate(after.approvals)(run())({ ...terminalCall, arguments: { command: "pwd" } });
    await after.waiting;
    // The re-run waits on the request already in the chat instead of asking twice.
    expect((await store.deliveries.pending()).filter((d) => d.buttons !== undefined)).toHaveLength(asked);
    expect(await command("approve", "", asker)).toBe("Approved: the `terminal` call runs now.");
    expect(await rerun).toBeUndefined();
    // One request, counted once: as the re-run saw it end, not also as "stopped" by the shutdown.
    expect(outcomes).toEqual(["terminal:stopped", "terminal:approved"]);
  });

  it("refuses the call when its request disappears from the store while it waits", async () => {
    const vanished: ApprovalsPort = { ...store.approvals, get: async () => undefined };
    expect(await gate(vanished)(run())(terminalCall)).toMatchObject({ block: true });
    expect(outcomes).toEqual(["terminal:timed_out"]);
  });

  it("refuses an approval tool at once over the OpenAI-compatible API, which cannot show a prompt", async () => {
    const apiRun = { ...run(), target: { platform: "api", chatId: "r1" } };
    expect(await gate()(apiRun)(terminalCall)).toEqual({ block: true, reason: expect.stringContaining("over the OpenAI-compatible API") });
    expect(await store.deliveries.pending()).toEqual([]);
    expect(outcomes).toEqual(["terminal:denied"]);
  });

  it("refuses the call when asking fails, instead of running it unasked", async () => {
    const broken: ApprovalsPort = { ...store.approvals, create: () => Promise.reject(new Error("database is away")) };
    expect(await gate(broken)(run())(terminalCall)).toEqual({ block: true, reason: expect.stringContaining("could not be asked") });
    expect(outcomes).toEqual(["terminal:failed"]);
  });
});

const NOTHING = "Nothing here is waiting for your approval.";

describe("/approve and /deny", () => {
  it("edits a pressed prompt to show the outcome and posts nothing more", async () => {
    const decision = gate()(run())(terminalCall);
    const id = /\/approve ([a-z0-9]+)/.exec((await prompt()).buttons?.[0]?.value ?? "")?.[1] ?? "";
    const edits: string[] = [];
    const press = inbound({ text: `/approve ${id}`, action: { messageId: "55" } });
    expect(await command("approve", id, press, async (text) => (edits.push(text), true))).toBe("");
    expect(edits).toEqual([expect.stringMatching(/^\*\*`terminal` call\*\*\n````\nls -la ```x```\n````\nApproved: the `terminal` call runs now\.$/)]);
    expect(await decision).toBeUndefined();
  });

  it("answers a press on a prompt already settled by showing the outcome on it, posting nothing", async () => {
    const decision = gate()(run())(terminalCall);
    const id = /\/approve ([a-z0-9]+)/.exec((await prompt()).buttons?.[0]?.value ?? "")?.[1] ?? "";
    const edits: string[] = [];
    const edit = async (text: string): Promise<boolean> => (edits.push(text), true);
    const press = inbound({ text: `/approve ${id}`, action: { messageId: "55" } });
    expect(await command("approve", id, press, edit)).toBe("");
    await decision;
    // A second tap (say on a slow connection) is answered by the prompt again, not by "already approved".
    expect(await command("deny", id, press, edit)).toBe("");
    expect(edits).toHaveLength(2);
    expect(edits[1]).toBe(edits[0]);
    // Typed, the same thing is said in the chat.
    expect(await command("deny", id, asker)).toBe("This request was already approved.");

    const timedOut = gate()(run())({ ...terminalCall, toolCallId: "c2", arguments: { command: "pwd" } });
    const [, second] = await prompts(2);
    const late = /\/deny ([a-z0-9]+)/.exec(second?.buttons?.[2]?.value ?? "")?.[1] ?? "";
    clock += 60_000;
    await timedOut;
    expect(await command("deny", late, inbound({ text: `/deny ${late}`, action: { messageId: "56" } }), edit)).toBe("");
    expect(edits[2]).toMatch(/\npwd\n```\nNot answered in time, or its run was stopped: the `terminal` call was not run\.$/);
  });

  it("answers in the chat when the pressed prompt cannot be edited", async () => {
    const decision = gate()(run())(terminalCall);
    await prompt();
    expect(await command("deny", "", inbound({ action: { messageId: "55" } }), async () => false)).toBe("Denied: the `terminal` call will not run.");
    await decision;
  });

  it("treats a request of another chat as unknown", async () => {
    const decision = gate()(run())(terminalCall);
    const id = /\/approve ([a-z0-9]+)/.exec((await prompt()).buttons?.[0]?.value ?? "")?.[1] ?? "";
    expect(await command("approve", id, inbound({ chat: { id: "200", type: "dm" } }))).toBe(NOTHING);
    expect(await command("approve", "", asker)).toMatch(/^Approved/);
    await decision;
  });

  it("says when nothing waits", async () => {
    expect(await command("approve", "", asker)).toBe(NOTHING);
    expect(await command("deny", "abcdef123456", asker)).toBe(NOTHING);
  });
});
