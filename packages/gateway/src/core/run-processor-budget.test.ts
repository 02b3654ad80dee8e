import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger, type HermesAgent, type HermesAgentResult } from "@hermes/agent";
import { openStore, utcDayOf, type Store } from "@hermes/store";
import { InMemorySessionLock } from "../queue/session-lock.js";
import { createRunProcessor } from "./run-processor.js";
import { inbound } from "./testing.js";
import { DEFAULT_SESSION_SCOPE, sessionKeyFor } from "./session-key.js";

let dir: string;
let store: Store;
let clock: number;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "hermes-budget-"));
  clock = Date.parse("2026-12-02T20:35:00Z");
  store = await openStore({ file: path.join(dir, "state.db"), now: () => clock });
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const hooks = { emit: async () => ({ blocked: false as const }) };
const message = inbound();
const key = sessionKeyFor(message, DEFAULT_SESSION_SCOPE);
const owner = { platform: message.platform, userId: message.user.id };

async function queued(id: string): Promise<number> {
  const { record } = await store.inbound.recordIfNew({ platform: message.platform, messageId: id, payload: JSON.stringify({ ...message, messageId: id }), sessionKey: key, status: "queued" });
  return record.id;
}

/** An agent whose every run costs `costUsd`, counting how often it is asked. */
function costlyAgent(costUsd: number): { agent: HermesAgent; runs: () => number } {
  let runs = 0;
  const agent = {
    run: async (): Promise<Partial<HermesAgentResult>> => {
      runs += 1;
      return {
        text: `answer ${runs}`,
        stopReason: "completed",
        newMessages: [{ role: "user", content: "q", timestamp: 1 }],
        history: [],
        compacted: false,
        steps: 1,
        usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, costUsd },
      };
    },
  } as unknown as HermesAgent;
  return { agent, runs: () => runs };
}

function processor(agent: HermesAgent, dailyBudgetUsd: number | undefined) {
  return createRunProcessor({ store, lock: new InMemorySessionLock(), agentFor: async () => agent, hooks, sessionScope: DEFAULT_SESSION_SCOPE, logger: silentLogger, dailyBudgetUsd, now: () => clock });
}

async function run(process: ReturnType<typeof processor>, id: number): Promise<void> {
  await process({ inboundId: id, sessionKey: key }, { signal: new AbortController().signal });
}

describe("run processor: daily budget", () => {
  it("adds each run's cost to the sender's day, and answers without the model once it reaches the budget", async () => {
    const { agent, runs } = costlyAgent(0.6);
    const process = processor(agent, 1);
    for (const id of ["m1", "m2", "m3"]) await run(process, await queued(id));

    expect(runs()).toBe(2);
    expect((await store.usage.forUserOnDay(owner, utcDayOf(clock))).costUsd).toBeCloseTo(1.2, 10);
    const texts = (await store.deliveries.pending()).map((delivery) => delivery.text);
    expect(texts).toEqual(["answer 1", "answer 2", "You've reached today's budget ($1.20 of $1.00), so I can't answer until it resets at 00:00 UTC, in 3 h 25 min."]);
    const session = await store.sessions.active(key);
    // The refused message stays out of the transcript: two runs of one message each.
    expect(await store.messages.count(session?.id ?? "")).toBe(2);
    expect((await store.inbound.recent(10)).map((record) => record.status)).toEqual(["answered", "answered", "answered"]);
  });

  it("calls the model again on the next UTC day", async () => {
    const { agent, runs } = costlyAgent(2);
    const process = processor(agent, 1);
    await run(process, await queued("m1"));
    await run(process, await queued("m2"));
    expect(runs()).toBe(1);
    clock = Date.parse("2026-12-03T00:00:00Z");
    await run(process, await queued("m3"));
    expect(runs()).toBe(2);
  });

  it("never refuses without a budget, but still records the day's spend", async () => {
    const { agent, runs } = costlyAgent(5);
    const process = processor(agent, undefined);
    for (const id of ["m1", "m2"]) await run(process, await queued(id));
    expect(runs()).toBe(2);
    expect(await store.usage.forUserOnDay(owner, utcDayOf(clock))).toMatchObject({ runs: 2, tokens: 30, costUsd: 10 });
  });
});
