import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger, type HermesAgent, type HermesAgentResult, type Logger } from "@hermes/agent";
import { openStore, type Store } from "@hermes/store";
import { trace } from "@opentelemetry/api";
import { InMemorySessionLock } from "../queue/session-lock.js";
import { recordSpansGlobally } from "../tracing/span-recorder.fixture.js";
import { currentTraceCarrier, type TraceCarrier } from "../tracing/trace-carrier.js";
import { createRunProcessor, type SessionLease } from "./run-processor.js";
import { inbound } from "./testing.js";
import { DEFAULT_SESSION_SCOPE, sessionKeyFor } from "./session-key.js";

let dir: string;
let store: Store;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "hermes-proc-"));
  store = await openStore({ file: path.join(dir, "state.db") });
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const hooks = { emit: async () => ({ blocked: false as const }) };
const message = inbound();
const key = sessionKeyFor(message, DEFAULT_SESSION_SCOPE);

async function queued(text: string, id: string, traceContext?: TraceCarrier): Promise<number> {
  const { record } = await store.inbound.recordIfNew({ platform: "telegram", messageId: id, payload: JSON.stringify({ ...message, messageId: id, text }), sessionKey: key, status: "queued", traceContext });
  return record.id;
}

/** An intake span as the gateway starts it, ended at once; its context is what the gateway saves with the message. */
function received(name: string): TraceCarrier {
  return trace.getTracer("test").startActiveSpan(name, (span) => {
    const injected = currentTraceCarrier();
    span.end();
    return injected;
  });
}

function fakeAgent(run: (text: string) => Promise<Partial<HermesAgentResult>>): HermesAgent {
  return {
    run: async (input: string) => ({
      text: "",
      stopReason: "completed",
      newMessages: [],
      history: [],
      compacted: false,
      steps: 1,
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, costUsd: 0 },
      model: { provider: "test", id: "test" },
      ...(await run(input)),
    }),
  } as unknown as HermesAgent;
}

const ok = (text: string): Partial<HermesAgentResult> => ({ text, newMessages: [{ role: "user", content: text, timestamp: 1 }] });

/** The store, noting "stored <id>" in `events` as each run's completion commits. */
function recordingCompletions(events: string[]): Store {
  return {
    ...store,
    completeRun: async (input) => {
      const done = await store.completeRun(input);
      events.push(`stored ${input.inboundId}`);
      return done;
    },
  };
}

describe("run processor", () => {
  it("runs each message in a hermes.run span whose parent is the job's trace context, with a logger naming the run", async () => {
    const recorder = recordSpansGlobally();
    try {
      const id = await queued("hello", "m1");
      const carrier = received("receive telegram");
      let activeInAgent: string | undefined;
      const bindings: Array<Record<string, unknown>> = [];
      const logger: Logger = {
        ...silentLogger,
        child: (fields) => {
          bindings.push(fields);
          return silentLogger;
        },
      };
      const process = createRunProcessor({
        store,
        lock: new InMemorySessionLock(),
        agentFor: async () => fakeAgent(async () => {
          activeInAgent = trace.getActiveSpan()?.spanContext().spanId;
          return ok("hi");
        }),
        hooks,
        sessionScope: DEFAULT_SESSION_SCOPE,
        logger,
      });
      await process({ inboundId: id, sessionKey: key, ...carrier }, { signal: new AbortController().signal });

      const [receive] = recorder.named("receive telegram");
      const [run] = recorder.named("hermes.run");
      expect(run?.parentSpanContext?.spanId).toBe(receive?.spanContext().spanId);
      expect(run?.spanContext().traceId).toBe(receive?.spanContext().traceId);
      expect(activeInAgent).toBe(run?.spanContext().spanId);
      expect(run?.attributes).toMatchObject({ "messaging.message.id": `run-${id}`, "hermes.inbound_id": id, "hermes.run.outcome": "answered" });
      expect(bindings).toContainEqual({ runId: `run-${id}`, sessionKey: key, inboundId: id, traceId: run?.spanContext().traceId });
    } finally {
      await recorder.stop();
    }
  });

  it("puts a message answered in another message's job into its own intake's trace, read from the message's row", async () => {
    const recorder = recordSpansGlobally();
    try {
      // The gateway saved each message with its receive span's context; this processor, like a worker's, has seen
      // neither intake, and only the first message's job reaches it.
      const firstCarrier = received("receive m1");
      const first = await queued("hello", "m1", firstCarrier);
      const second = await queued("and another thing", "m2", received("receive m2"));
      const third = await queued("a damaged row", "m3", { traceparent: "00-not-a-trace-01", tracestate: "x=1" });
      const process = createRunProcessor({
        store,
        lock: new InMemorySessionLock(),
        agentFor: async () => fakeAgent(async (text) => ok(`re: ${text}`)),
        hooks,
        sessionScope: DEFAULT_SESSION_SCOPE,
        logger: silentLogger,
      });
      await process({ inboundId: first, sessionKey: key, ...firstCarrier }, { signal: new AbortController().signal });

      const runs = recorder.named("hermes.run");
      expect(runs).toHaveLength(3);
      const runOf = (id: number) => runs.find((span) => span.attributes["hermes.inbound_id"] === id);
      for (const [id, name] of [[first, "receive m1"], [second, "receive m2"]] as const) {
        const [intake] = recorder.named(name);
        expect(runOf(id)?.parentSpanContext?.spanId).toBe(intake?.spanContext().spanId);
        expect(runOf(id)?.spanContext().traceId).toBe(intake?.spanContext().traceId);
      }
      // A malformed stored context is ignored: that run starts a trace of its own and is answered all the same.
      expect(runOf(third)?.parentSpanContext).toBeUndefined();
      expect(runOf(third)?.attributes["hermes.run.outcome"]).toBe("answered");
      expect((await store.inbound.get(third))?.status).toBe("answered");
    } finally {
      await recorder.stop();
    }
  });

  it("answers a run that crashed with an apology and goes on with the next message", async () => {
    const first = await queued("boom", "m1");
    await queued("second", "m2");
    const process = createRunProcessor({
      store,
      lock: new InMemorySessionLock(),
      agentFor: async () => fakeAgent(async (text) => (text === "boom" ? Promise.reject(new Error("bug")) : ok("answer to second"))),
      hooks,
      sessionScope: DEFAULT_SESSION_SCOPE,
      logger: silentLogger,
    });
    expect(await process({ inboundId: first, sessionKey: key }, { signal: new AbortController().signal })).toBe("done");
    const texts = (await store.deliveries.pending()).map((d) => d.text);
    expect(texts).toEqual([expect.stringContaining("something went wrong"), "answer to second"]);
    expect((await store.inbound.get(first))?.status).toBe("failed");
  });

  it("reports the messages whose replies are in the outbox once the run has answered them, before it lets go of the session", async () => {
    const first = await queued("one", "m1");
    const second = await queued("two", "m2");
    const locks = new InMemorySessionLock();
    const events: string[] = [];
    const recording = recordingCompletions(events);
    const process = createRunProcessor({
      store: recording,
      lock: locks,
      agentFor: async () => fakeAgent(async (text) => ok(`answer to ${text}`)),
      hooks,
      sessionScope: DEFAULT_SESSION_SCOPE,
      onRepliesStored: (inboundIds) => events.push(`reported ${inboundIds.join(",")}${locks.isHeld(key) ? " (session held)" : ""}`),
      logger: silentLogger,
    });
    expect(await process({ inboundId: first, sessionKey: key }, { signal: new AbortController().signal })).toBe("done");
    expect(events).toEqual([`stored ${first}`, `stored ${second}`, `reported ${first},${second} (session held)`]);
    expect((await store.deliveries.pending()).map((d) => d.text)).toEqual(["answer to one", "answer to two"]);
  });

  it("reports each message whose reply is committed at once, before the run's agent:end hook and its next message", async () => {
    const first = await queued("one", "m1");
    const second = await queued("two", "m2");
    const events: string[] = [];
    const recording = recordingCompletions(events);
    const process = createRunProcessor({
      store: recording,
      lock: new InMemorySessionLock(),
      agentFor: async () => fakeAgent(async (text) => ok(`answer to ${text}`)),
      hooks: {
        emit: async (event: { type: string }) => {
          if (event.type === "agent:end") events.push("agent:end");
          return { blocked: false as const };
        },
      },
      sessionScope: DEFAULT_SESSION_SCOPE,
      onReplyStored: (inboundId) => events.push(`reply of ${inboundId} stored`),
      logger: silentLogger,
    });
    expect(await process({ inboundId: first, sessionKey: key }, { signal: new AbortController().signal })).toBe("done");
    expect(events).toEqual([`stored ${first}`, `reply of ${first} stored`, "agent:end", `stored ${second}`, `reply of ${second} stored`, "agent:end"]);
  });

  it("still answers when finishing the run fails once", async () => {
    const first = await queued("hello", "m1");
    let failures = 1;
    const flaky: Store = {
      ...store,
      completeRun: async (input) => {
        if (failures-- > 0) throw new Error("SQLITE_BUSY");
        return store.completeRun(input);
      },
    };
    const process = createRunProcessor({ store: flaky, lock: new InMemorySessionLock(), agentFor: async () => fakeAgent(async () => ok("hi")), hooks, sessionScope: DEFAULT_SESSION_SCOPE, logger: silentLogger });
    await process({ inboundId: first, sessionKey: key }, { signal: new AbortController().signal });
    expect((await store.deliveries.pending()).map((d) => d.text)).toEqual([expect.stringContaining("something went wrong")]);
    expect(await store.inbound.unanswered(key)).toBe(0);
  });

  it("stops and leaves the message to the new owner when its session lease is lost", async () => {
    const first = await queued("slow", "m1");
    let renewals = 0;
    const lease: SessionLease = { renew: async () => (renewals++, false), release: async () => {} };
    const process = createRunProcessor({
      store,
      lock: { tryAcquire: async () => lease },
      leaseMs: 3_000,
      agentFor: async () =>
        fakeAgent(async () => {
          // Waits like a long model call; the lost lease aborts the run's signal.
          await new Promise((resolve) => setTimeout(resolve, 1_500));
          return { stopReason: "ABORT" };
        }),
      hooks,
      sessionScope: DEFAULT_SESSION_SCOPE,
      logger: silentLogger,
    });
    // Asked to run again rather than done: if nobody took the session over, the message must not be stranded.
    expect(await process({ inboundId: first, sessionKey: key }, { signal: new AbortController().signal })).toBe("retry_later");
    expect(renewals).toBeGreaterThan(0);
    expect((await store.inbound.get(first))?.status).toBe("running");
    expect(await store.deliveries.pending()).toEqual([]);
  });

  it("answers a message whose run lost its lease when the job runs again and the session is free", async () => {
    const first = await queued("slow", "m1");
    let lost = true;
    const lossyLease: SessionLease = { renew: async () => false, release: async () => {} };
    const lock = new InMemorySessionLock();
    const process = createRunProcessor({
      store,
      lock: { tryAcquire: async (sessionKey, ttlMs) => (lost ? lossyLease : lock.tryAcquire(sessionKey, ttlMs)) },
      leaseMs: 3_000,
      agentFor: async () =>
        fakeAgent(async () => {
          if (!lost) return ok("answered after all");
          await new Promise((resolve) => setTimeout(resolve, 1_500));
          return { stopReason: "ABORT" };
        }),
      hooks,
      sessionScope: DEFAULT_SESSION_SCOPE,
      logger: silentLogger,
    });
    expect(await process({ inboundId: first, sessionKey: key }, { signal: new AbortController().signal })).toBe("retry_later");
    lost = false;
    expect(await process({ inboundId: first, sessionKey: key }, { signal: new AbortController().signal })).toBe("done");
    expect((await store.deliveries.pending()).map((d) => d.text)).toEqual(["answered after all"]);
    expect((await store.inbound.get(first))?.status).toBe("answered");
  });

  it("calls beforeRun with the session key before each message's hooks and agent (shared files with PostgreSQL)", async () => {
    const events: string[] = [];
    const first = await queued("one", "m1");
    await queued("two", "m2");
    const process = createRunProcessor({
      store,
      lock: new InMemorySessionLock(),
      beforeRun: async (sessionKey, sessionId) => void events.push(`before ${sessionKey} ${sessionId}`),
      agentFor: async () => fakeAgent(async (text) => (events.push(`agent ${text}`), ok(text))),
      hooks: { emit: async (event: { type: string }) => (events.push(event.type), { blocked: false as const }) },
      sessionScope: DEFAULT_SESSION_SCOPE,
      logger: silentLogger,
    });
    await process({ inboundId: first, sessionKey: key }, { signal: new AbortController().signal });
    const session = (await store.sessions.active(key))?.id;
    expect(events.filter((event) => !event.startsWith("agent:end"))).toEqual([`before ${key} ${session}`, "agent:start", "agent one", `before ${key} ${session}`, "agent:start", "agent two"]);
  });
});
