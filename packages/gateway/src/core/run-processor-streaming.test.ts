import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { silentLogger, type AgentCallbacks, type HermesAgent, type HermesAgentResult } from "@hermes/agent";
import { openStore, type Store } from "@hermes/store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InMemorySessionLock } from "../queue/session-lock.js";
import { RunAbortedError, type RunAbortCause } from "../queue/types.js";
import type { StreamUpdate } from "../streaming/stream-update.js";
import { createRunProcessor } from "./run-processor.js";
import { DEFAULT_SESSION_SCOPE, sessionKeyFor } from "./session-key.js";
import { inbound } from "./testing.js";

let dir: string;
let store: Store;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "hermes-proc-stream-"));
  store = await openStore({ file: path.join(dir, "state.db") });
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const message = inbound();
const key = sessionKeyFor(message, DEFAULT_SESSION_SCOPE);

/** An agent that starts a terminal call at once and is then aborted for `cause`, as /stop or a shutdown does. */
function abortedAgent(abort: AbortController, cause: RunAbortCause): HermesAgent {
  return {
    run: async (_input: string, options: { callbacks?: AgentCallbacks }): Promise<HermesAgentResult> => {
      await options.callbacks?.onToolStart?.({ step: 1, toolCallId: "c1", toolName: "terminal", arguments: { command: "ls" } });
      abort.abort(new RunAbortedError(cause));
      return {
        text: "Stopped.",
        stopReason: "ABORT",
        newMessages: [],
        history: [],
        compacted: false,
        steps: 1,
        usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, costUsd: 0 },
        model: { provider: "test", id: "test" },
      } as unknown as HermesAgentResult;
    },
  } as unknown as HermesAgent;
}

async function streamedRun(cause: RunAbortCause): Promise<string[]> {
  const { record } = await store.inbound.recordIfNew({ platform: "telegram", messageId: "m1", payload: JSON.stringify(message), sessionKey: key, status: "queued" });
  const updates: StreamUpdate[] = [];
  const abort = new AbortController();
  const process = createRunProcessor({
    store,
    lock: new InMemorySessionLock(),
    agentFor: async () => abortedAgent(abort, cause),
    hooks: { emit: async () => ({ blocked: false as const }) },
    streamTo: (update) => updates.push(update),
    sessionScope: DEFAULT_SESSION_SCOPE,
    logger: silentLogger,
  });
  await process({ inboundId: record.id, sessionKey: key }, { signal: abort.signal });
  return updates.map((update) => (update.status === undefined ? update.text : `${update.text}|${update.status}`));
}

describe("a streamed run that ends without a reply", () => {
  it("does not leave its status line showing for good when the person stopped it", async () => {
    expect(await streamedRun("stop")).toEqual(["|Running terminal…", "Stopped."]);
    expect(await store.deliveries.pending()).toEqual([]);
  });

  it("leaves the status to the run that goes on after a shutdown, in the same messages", async () => {
    expect(await streamedRun("shutdown")).toEqual(["|Running terminal…"]);
  });
});
