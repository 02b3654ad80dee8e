import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "@hermes/agent";
import type { Message } from "@mariozechner/pi-ai";
import { openStore, type Store } from "@hermes/store";
import { Gateway } from "../core/gateway.js";
import { DEFAULT_SESSION_SCOPE, newSessionFor, sessionKeyFor } from "../core/session-key.js";
import { inbound } from "../core/testing.js";
import { InMemorySessionLock } from "../queue/session-lock.js";
import { InMemorySessionWaiters, wakingSessionLock } from "../queue/session-waiters.js";
import { ManualScheduler, settleCallbacks } from "../queue/testing.js";
import type { SessionLock } from "../queue/types.js";
import { createWithSessionLock } from "../runtime/command-session-lock.js";

let dir: string;
let store: Store;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "hermes-session-commands-"));
  store = await openStore({ file: path.join(dir, "state.db") });
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const first = inbound({ messageId: "u-1", text: "first" });
const key = sessionKeyFor(first, DEFAULT_SESSION_SCOPE);

function user(text: string): Message {
  return { role: "user", content: text, timestamp: 0 };
}

function assistant(text: string): Message {
  return {
    role: "assistant",
    content: [{ type: "text", text }],
    api: "openai-completions",
    provider: "test",
    model: "m",
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: "stop",
    timestamp: 0,
  };
}

/** A gateway whose commands share the lock (and wake-ups) a test's stand-in run takes, as in embedded mode. */
function setUp(compress: (sessionKey: string) => Promise<string> = async () => "compressed") {
  const locks = new InMemorySessionLock();
  const waiters = new InMemorySessionWaiters();
  const lock: SessionLock = wakingSessionLock(locks, waiters, silentLogger);
  const scheduler = new ManualScheduler();
  const gateway = new Gateway({
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
    compress,
    withSessionLock: createWithSessionLock({ lock, waiters, scheduler, logger: silentLogger, waitMs: 5_000 }),
    logger: silentLogger,
  });
  return { gateway, lock, locks, scheduler };
}

/** The first exchange is in the history; a run of a second message holds the session, "writing" its turn. */
async function runInProgress(lock: SessionLock) {
  const { session } = await store.sessions.getOrCreateActive(newSessionFor(first, key));
  await store.messages.append(session.id, [user("first"), assistant("one")]);
  const second = await store.inbound.recordIfNew({ platform: "telegram", messageId: "u-2", payload: JSON.stringify({ ...first, messageId: "u-2", text: "second" }), sessionKey: key, status: "received" });
  await store.inbound.setStatus(second.record.id, "running");
  const lease = await lock.tryAcquire(key, 60_000);
  if (!lease) throw new Error("the stand-in run could not take the session");
  return {
    sessionId: session.id,
    finish: async () => {
      await store.messages.append(session.id, [user("second"), assistant("two")]);
      await store.inbound.setStatus(second.record.id, "answered");
      await lease.release();
    },
  };
}

async function notices(): Promise<string[]> {
  return (await store.deliveries.pending(100)).map((delivery) => delivery.text);
}

async function texts(sessionId: string): Promise<string[]> {
  return (await store.messages.history(sessionId)).map((message) =>
    typeof message.content === "string" ? message.content : message.content.map((part) => (part.type === "text" ? part.text : "")).join(""),
  );
}

describe("session commands under the session lock", () => {
  it("/undo waits for the run holding the session and then undoes the turn that run finished", async () => {
    const { gateway, lock } = setUp();
    const run = await runInProgress(lock);
    const undo = gateway.receive(inbound({ messageId: "u-3", text: "/undo" }));
    await settleCallbacks();
    // Nothing touched while the run writes its turn.
    expect(await notices()).toEqual([]);
    expect(await texts(run.sessionId)).toEqual(["first", "one"]);

    await run.finish();
    await undo;
    expect(await notices()).toEqual(["Removed your last message and my reply (2 messages in all)."]);
    expect(await texts(run.sessionId)).toEqual(["first", "one"]);
  });

  it("/undo answers that the bot is still answering (suggesting /stop) when the run goes on past the wait", async () => {
    const { gateway, lock, scheduler } = setUp();
    const run = await runInProgress(lock);
    const undo = gateway.receive(inbound({ messageId: "u-3", text: "/undo" }));
    await settleCallbacks();
    expect(scheduler.fire(5_000)).toBe(1);
    await undo;
    const [reply] = await notices();
    expect(reply).toContain("still answering");
    expect(reply).toContain("/stop");
    await run.finish();
    // The run's finished turn is intact: the refused /undo removed nothing.
    expect(await texts(run.sessionId)).toEqual(["first", "one", "second", "two"]);
  });

  it("/retry drops the last exchange only under the lock, after the run released it", async () => {
    const { gateway, lock } = setUp();
    const run = await runInProgress(lock);
    const retry = gateway.receive(inbound({ messageId: "u-3", text: "/retry" }));
    await settleCallbacks();
    expect(await texts(run.sessionId)).toEqual(["first", "one"]);
    await run.finish();
    await retry;
    expect(await notices()).toContain("Retrying your last message…");
    expect(await texts(run.sessionId)).toEqual(["first", "one"]);
  });

  it("/compress summarises inside the lock, so a run cannot start on the history while it is rewritten", async () => {
    const heldDuringCompression: boolean[] = [];
    let locks: InMemorySessionLock | undefined;
    const { gateway, locks: sessionLocks } = setUp(async (sessionKey) => {
      heldDuringCompression.push(locks?.isHeld(sessionKey) ?? false);
      return "compressed";
    });
    locks = sessionLocks;
    const { session } = await store.sessions.getOrCreateActive(newSessionFor(first, key));
    await store.messages.append(session.id, [user("first"), assistant("one")]);
    await gateway.receive(inbound({ messageId: "u-3", text: "/compress" }));
    for (let i = 0; i < 20 && (await notices()).length < 2; i += 1) await settleCallbacks();
    expect(heldDuringCompression).toEqual([true]);
    expect(await notices()).toEqual(["Compressing the conversation…", "compressed"]);
    expect(sessionLocks.isHeld(key)).toBe(false);
  });
});
