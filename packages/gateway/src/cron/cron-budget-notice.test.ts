import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger, type HermesAgent, type HermesAgentResult } from "@hermes/agent";
import { openStore, type Store } from "@hermes/store";
import { InMemorySessionLock } from "../queue/session-lock.js";
import { createRunProcessor } from "../core/run-processor.js";
import { inbound } from "../core/testing.js";
import { DEFAULT_SESSION_SCOPE, sessionKeyFor } from "../core/session-key.js";
import { cronMessageId, cronRunKey } from "./cron-run-key.js";

let dir: string;
let store: Store;
let clock: number;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "hermes-cron-budget-"));
  clock = Date.parse("2026-12-02T20:35:00Z");
  store = await openStore({ file: path.join(dir, "state.db"), now: () => clock });
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const JOB = "ab12cd34";
const CRON_KEY = cronRunKey(JOB);
const chatMessage = inbound();
const CHAT_KEY = sessionKeyFor(chatMessage, DEFAULT_SESSION_SCOPE);
const BUDGET_TEXT = /^You've reached today's budget/;

/** Every run costs $2 against a $1 budget: after one run, the creator's day is over budget. */
const agent = {
  run: async (): Promise<Partial<HermesAgentResult>> => ({
    text: "answer",
    stopReason: "completed",
    newMessages: [{ role: "user", content: "q", timestamp: 1 }],
    history: [],
    compacted: false,
    steps: 1,
    usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, costUsd: 2 },
  }),
} as unknown as HermesAgent;

const process = () =>
  createRunProcessor({ store, lock: new InMemorySessionLock(), agentFor: async () => agent, hooks: { emit: async () => ({ blocked: false as const }) }, sessionScope: DEFAULT_SESSION_SCOPE, logger: silentLogger, dailyBudgetUsd: 1, now: () => clock });

/** Runs one message of the chat, or one slot of the task (as the scheduler records it), and returns its inbound id. */
async function runMessage(kind: "chat" | "slot", id: string): Promise<number> {
  const sessionKey = kind === "chat" ? CHAT_KEY : CRON_KEY;
  const messageId = kind === "chat" ? id : cronMessageId(JOB, clock);
  const payload = JSON.stringify({ ...chatMessage, messageId, replyToId: kind === "slot" ? "" : undefined });
  const { record } = await store.inbound.recordIfNew({ platform: chatMessage.platform, messageId, payload, sessionKey, status: "queued" });
  await process()({ inboundId: record.id, sessionKey }, { signal: new AbortController().signal });
  return record.id;
}

async function budgetNotices(): Promise<Array<string | undefined>> {
  return (await store.deliveries.pending(100)).filter((delivery) => BUDGET_TEXT.test(delivery.text)).map((delivery) => delivery.sessionKey);
}

describe("a scheduled task's slots over its creator's daily budget", () => {
  it("tell the chat once per UTC day, then pass silently; the chat's own messages are told every time", async () => {
    await runMessage("chat", "m1");
    for (let slot = 0; slot < 3; slot += 1) {
      clock += 60_000;
      const id = await runMessage("slot", `s${slot}`);
      expect((await store.inbound.get(id))?.status).toBe("answered");
    }
    clock += 60_000;
    await runMessage("chat", "m2");
    expect(await budgetNotices()).toEqual([CRON_KEY, CHAT_KEY]);

    // A new day: the creator spends again, and the task's first refused slot tells the chat again.
    clock = Date.parse("2026-12-03T08:00:00Z");
    await runMessage("chat", "m3");
    for (let slot = 0; slot < 2; slot += 1) {
      clock += 60_000;
      await runMessage("slot", `t${slot}`);
    }
    expect(await budgetNotices()).toEqual([CRON_KEY, CHAT_KEY, CRON_KEY]);
    // The note of a sent notice is never a message to run or recover.
    expect(await store.inbound.unanswered(CRON_KEY)).toBe(0);
    expect(await store.inbound.unfinished(100)).toEqual([]);
  });
});
