import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger, type HermesAgent } from "@hermes/agent";
import { openStore, type Store } from "@hermes/store";
import { InMemorySessionLock } from "../queue/session-lock.js";
import { createRunProcessor } from "./run-processor.js";
import { DEFAULT_SESSION_SCOPE, sessionKeyFor } from "./session-key.js";
import { inbound } from "./testing.js";

let dir: string;
let store: Store;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "hermes-proc-outage-"));
  store = await openStore({ file: path.join(dir, "state.db") });
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const message = inbound();
const key = sessionKeyFor(message, DEFAULT_SESSION_SCOPE);

/** What node-postgres throws when the server ends the connection under a statement (a restart, a failover). */
function connectionTerminated(): Error {
  return Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" });
}

function agentThat(answer: () => Promise<string>): HermesAgent {
  return {
    run: async () => {
      const text = await answer();
      return { text, stopReason: "completed", newMessages: [{ role: "user", content: "hello", timestamp: 1 }], history: [], compacted: false, steps: 1, usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, costUsd: 0 }, model: { provider: "test", id: "test" } };
    },
  } as unknown as HermesAgent;
}

describe("a run cut off by the database", () => {
  it("is handed back to the queue to run again, not answered with the crash apology, and answers when run again", async () => {
    const { record } = await store.inbound.recordIfNew({ platform: "telegram", messageId: "m1", payload: JSON.stringify({ ...message, messageId: "m1", text: "hello" }), sessionKey: key, status: "queued" });
    let cut = true;
    const process = createRunProcessor({
      store,
      lock: new InMemorySessionLock(),
      agentFor: async () => agentThat(async () => (cut ? Promise.reject(connectionTerminated()) : "hi there")),
      hooks: { emit: async () => ({ blocked: false as const }) },
      sessionScope: DEFAULT_SESSION_SCOPE,
      logger: silentLogger,
    });
    const job = { inboundId: record.id, sessionKey: key };

    await expect(process(job, { signal: new AbortController().signal })).rejects.toThrow("terminating connection");
    expect(await store.deliveries.pending()).toEqual([]);
    expect((await store.inbound.get(record.id))?.status).toBe("running");

    cut = false;
    expect(await process(job, { signal: new AbortController().signal })).toBe("done");
    expect((await store.deliveries.pending()).map((delivery) => delivery.text)).toEqual(["hi there"]);
    expect((await store.inbound.get(record.id))?.status).toBe("answered");
  });
});
