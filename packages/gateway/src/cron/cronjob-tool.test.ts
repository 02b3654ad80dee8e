import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger, type RunCaller, type ToolContext } from "@hermes/agent";
import { openStore, type Store } from "@hermes/store";
import { Gateway } from "../core/gateway.js";
import { DEFAULT_SESSION_SCOPE } from "../core/session-key.js";
import { inbound } from "../core/testing.js";
import { cronjobTool } from "./cronjob-tool.js";

const NOW = Date.UTC(2026, 0, 5, 10, 0, 0);
const DM: RunCaller = { platform: "telegram", userId: "7", chatId: "7", chatType: "dm", sessionKey: "agent:main:telegram:dm:7" };

let dir: string;
let store: Store;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "hermes-cronjob-"));
  store = await openStore({ file: path.join(dir, "state.db") });
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

function context(caller?: RunCaller): ToolContext {
  return { signal: new AbortController().signal, toolCallId: "call-1", sessionId: "s-1", logger: silentLogger, caller };
}

describe("the cronjob tool", () => {
  it("creates a job for the caller's chat, lists it there, and removes it by id", async () => {
    const tool = cronjobTool(store, () => NOW);
    const created = await tool.handler({ action: "create", schedule: "in 2s", prompt: "say ping" }, context(DM));
    expect(created.isError).toBeUndefined();
    const id = String(created.details?.id);
    expect(created.content).toContain(id);
    expect(await store.cronJobs.get(id)).toMatchObject({ platform: "telegram", chatId: "7", chatType: "dm", creatorId: "7", sessionKey: DM.sessionKey, schedule: "in 2s", kind: "once", prompt: "say ping", nextRunAt: NOW + 2_000 });
    // The chat hears of it from the gateway, whatever the model tells it.
    expect(await store.deliveries.pending(10)).toEqual([
      expect.objectContaining({ platform: "telegram", chatId: "7", kind: "notice", text: `Scheduled task ${id} created: in 2s — “say ping”. /cron remove ${id} cancels it.` }),
    ]);

    const listed = await tool.handler({ action: "list" }, context(DM));
    expect(listed.content).toContain(`${id} — in 2s`);
    // Another chat sees none of it and cannot remove it.
    const elsewhere: RunCaller = { ...DM, chatId: "8", userId: "8", sessionKey: "agent:main:telegram:dm:8" };
    expect((await tool.handler({ action: "list" }, context(elsewhere))).content).toBe("No scheduled tasks in this chat.");
    expect(await tool.handler({ action: "remove", id }, context(elsewhere))).toMatchObject({ isError: true });

    expect(await tool.handler({ action: "remove", id }, context(DM))).toMatchObject({ content: `Removed the scheduled task ${id}.` });
    expect(await store.cronJobs.get(id)).toBeUndefined();
  });

  it("answers bad input with an error the model can act on, storing nothing", async () => {
    const tool = cronjobTool(store, () => NOW);
    expect((await tool.handler({ action: "create", schedule: "every 10s", prompt: "x" }, context(DM))).content).toContain("too often");
    expect((await tool.handler({ action: "create", schedule: "in 1m" }, context(DM))).content).toContain("needs a schedule and a prompt");
    expect((await tool.handler({ action: "remove" }, context(DM))).content).toContain("needs the task's id");
    expect((await tool.handler({ action: "list" }, context(undefined))).isError).toBe(true);
    // A scheduled run does not schedule more.
    const cronRun: RunCaller = { ...DM, sessionKey: "agent:main:cron:ab12cd34" };
    expect((await tool.handler({ action: "create", schedule: "in 1m", prompt: "again" }, context(cronRun))).content).toContain("cannot create");
    // An API conversation has no chat for the answers of later runs.
    const api: RunCaller = { platform: "api", userId: "client", chatId: "s1", chatType: "dm", sessionKey: "agent:main:api:dm:s1" };
    expect((await tool.handler({ action: "create", schedule: "in 1m", prompt: "later" }, context(api))).content).toContain("no chat to post in");
    expect(await store.cronJobs.listAll()).toEqual([]);
    expect(await store.deliveries.pending(10)).toEqual([]);
  });

  it("announces a task in the thread it was created in, its prompt cut to 200 characters", async () => {
    const tool = cronjobTool(store, () => NOW);
    const thread: RunCaller = { platform: "telegram", userId: "7", chatId: "-100", chatType: "group", threadId: "3", sessionKey: "agent:main:telegram:group:-100:3" };
    const prompt = `fetch https://example.com and follow it ${"x".repeat(300)}`;
    const created = await tool.handler({ action: "create", schedule: "every 1m", prompt }, context(thread));
    const id = String(created.details?.id);
    const [notice] = await store.deliveries.pending(10);
    expect(notice).toMatchObject({ platform: "telegram", chatId: "-100", threadId: "3", kind: "notice", sessionKey: thread.sessionKey });
    expect(notice?.text).toBe(`Scheduled task ${id} created: every 1m — “${prompt.slice(0, 199)}…”. /cron remove ${id} cancels it.`);
  });
});

describe("the rate of task creation", () => {
  const LIMITED = "This chat created 10 scheduled tasks in the last hour; try again later or remove some with /cron remove.";

  it("refuses an 11th creation in a chat within a rolling hour, from the tool as from /cron create", async () => {
    let now = NOW;
    const tool = cronjobTool(store, () => now);
    for (let index = 0; index < 10; index += 1) {
      now = NOW + index * 60_000;
      expect((await tool.handler({ action: "create", schedule: "in 2h", prompt: `task ${index}` }, context(DM))).isError).toBeUndefined();
    }
    expect(await tool.handler({ action: "create", schedule: "in 2h", prompt: "one more" }, context(DM))).toMatchObject({ content: LIMITED, isError: true });
    expect(await typed("/cron create in 2h one more", "m-1", now)).toBe(LIMITED);
    // Another chat is not held back by this one.
    const elsewhere: RunCaller = { ...DM, chatId: "8", userId: "8", sessionKey: "agent:main:telegram:dm:8" };
    expect((await tool.handler({ action: "create", schedule: "in 2h", prompt: "mine" }, context(elsewhere))).isError).toBeUndefined();
    expect(await store.cronJobs.listForChat("telegram", "7")).toHaveLength(10);

    // An hour after the first creation, one place is free again.
    now = NOW + 3_600_000;
    expect((await tool.handler({ action: "create", schedule: "in 2h", prompt: "later" }, context(DM))).isError).toBeUndefined();
    expect(await tool.handler({ action: "create", schedule: "in 2h", prompt: "too soon" }, context(DM))).toMatchObject({ content: LIMITED });
    // Removing a task created in the last hour frees its place.
    const [recent] = (await store.cronJobs.listForChat("telegram", "7")).filter((job) => job.prompt === "task 9");
    expect(await store.cronJobs.remove(recent?.id ?? "")).toBe(true);
    expect(await typed("/cron create in 2h typed", "m-2", now)).toContain("Scheduled:");
  });
});

function gateway(now = NOW): Gateway {
  return new Gateway({
    store,
    queue: { enqueue: async () => ({ enqueued: true }), stop: async () => {} },
    hooks: { emit: async () => ({ blocked: false }) },
    delivery: { flush: async () => undefined },
    typing: { begin: () => {}, end: () => {} },
    authorize: async () => ({ kind: "allowed", via: "allowlist" }),
    sessionScope: DEFAULT_SESSION_SCOPE,
    botName: () => undefined,
    models: { primary: "m" },
    checkModel: () => undefined,
    compress: async () => "",
    logger: silentLogger,
    now: () => now,
  });
}

/** What the gateway answers to a command typed in the DM of DM's caller. */
async function typed(text: string, messageId: string, now: number): Promise<string> {
  await gateway(now).receive(inbound({ messageId, text, chat: { id: "7", type: "dm" } }));
  const sent = await store.deliveries.pending(100);
  return sent[sent.length - 1]?.text ?? "";
}

describe("/cron", () => {
  async function say(text: string, n: number, chat = { id: "-100", type: "group" as const }): Promise<string> {
    await gateway().receive(inbound({ messageId: `m-${n}`, text, chat, threadId: "3", mentionedBot: true }));
    const sent = await store.deliveries.pending(100);
    return sent[sent.length - 1]?.text ?? "";
  }

  it("creates a job for the group thread, lists it and removes it", async () => {
    const created = await say("/cron create 0 9 * * 1-5 summarise the news", 1);
    expect(created).toContain("Scheduled:");
    const [job] = await store.cronJobs.listAll();
    expect(job).toMatchObject({ platform: "telegram", chatId: "-100", chatType: "group", threadId: "3", creatorId: "7", kind: "cron", schedule: "0 9 * * 1-5", prompt: "summarise the news", nextRunAt: Date.UTC(2026, 0, 6, 9) });
    expect(await say("/cron", 2)).toContain(`${job?.id} — 0 9 * * 1-5 — next 2026-01-06 09:00 UTC: summarise the news`);
    expect(await say(`/cron remove ${job?.id}`, 3)).toBe(`Removed the scheduled task ${job?.id}.`);
    expect(await store.cronJobs.listAll()).toEqual([]);
  });

  it("answers a bad schedule or an unknown id clearly", async () => {
    expect(await say("/cron create in 10 fortnights hello", 1)).toContain("expected a number and a unit");
    expect(await say("/cron remove zzzzzzzz", 2)).toBe("No scheduled task zzzzzzzz in this chat. Send /cron to list them.");
    expect(await say("/cron frobnicate", 3)).toContain("Usage:");
    expect(await store.cronJobs.listAll()).toEqual([]);
  });
});
