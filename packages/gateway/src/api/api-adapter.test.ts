import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { silentLogger } from "@hermes/agent";
import { openStore, type InboundStatus, type Store } from "@hermes/store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { InboundMessage } from "../core/inbound.js";
import { inbound } from "../core/testing.js";
import { ApiAdapter, type ApiOutcome } from "./api-adapter.js";

let dir: string;
let store: Store;
let stopped: string[];
let adapter: ApiAdapter;
/** What the stand-in gateway does with each message it receives, after saving it. */
let onReceive: (message: InboundMessage, inboundId: number) => Promise<void>;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "hermes-api-adapter-"));
  store = await openStore({ file: path.join(dir, "state.db") });
  stopped = [];
  onReceive = async () => {};
  adapter = new ApiAdapter({ store, stopRun: async (key) => void stopped.push(key), logger: silentLogger });
  await adapter.start({
    reportStatus: () => {},
    receive: async (message) => {
      const { record } = await store.inbound.recordIfNew({ platform: message.platform, messageId: message.messageId, payload: JSON.stringify(message), sessionKey: keyOf(message), status: "queued" });
      await onReceive(message, record.id);
    },
  });
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

function keyOf(message: InboundMessage): string {
  return `agent:main:api:dm:${message.chat.id}`;
}

function request(messageId: string, chatId = "c1"): InboundMessage {
  return inbound({ platform: "api", messageId, chat: { id: chatId, type: "dm" }, user: { id: "default" } });
}

/** Stores a delivery as the gateway or a run would, and sends it to the adapter as the delivery service does. */
async function deliver(text: string, options: { chatId?: string; inboundId?: number; kind?: "reply" | "notice"; part?: string } = {}): Promise<void> {
  const chatId = options.chatId ?? "c1";
  const row = await store.deliveries.enqueue({ platform: "api", chatId, text, kind: options.kind ?? "reply", ...(options.inboundId !== undefined && { inboundId: options.inboundId }) });
  const result = await adapter.send({ chatId }, { text, format: "markdown", idempotencyKey: `d${row.id}${options.part ?? "p1"}` });
  expect(result.ok).toBe(true);
}

function submit(message: InboundMessage, signal = new AbortController().signal, onStreamText?: (text: string) => void): Promise<ApiOutcome> {
  return adapter.submit({ message, sessionKey: keyOf(message), signal, ...(onStreamText && { onStreamText }) });
}

async function setStatus(inboundId: number, status: InboundStatus): Promise<void> {
  await store.inbound.setStatus(inboundId, status);
}

describe("ApiAdapter", () => {
  it("answers a request with its run's reply, and not with a late reply to an earlier message of the chat", async () => {
    const earlier = await store.inbound.recordIfNew({ platform: "api", messageId: "old", payload: "{}", status: "answered" });
    onReceive = async (_message, inboundId) => {
      await deliver("the earlier answer", { inboundId: earlier.record.id });
      await setStatus(inboundId, "answered");
      await deliver("the answer", { inboundId });
    };
    expect(await submit(request("m1"))).toEqual({ kind: "answer", text: "the answer" });
  });

  it("waits past a busy acknowledgement and answers a command with its output", async () => {
    let own = 0;
    onReceive = async (_message, inboundId) => {
      own = inboundId;
    };
    const pending = submit(request("m1"));
    // Its sending waits until the request's message is saved and known.
    await deliver("Got it. I'm still answering your previous message", { kind: "notice" });
    await setStatus(own, "ignored");
    await deliver("Commands: /new …", { kind: "notice" });
    expect(await pending).toEqual({ kind: "answer", text: "Commands: /new …" });
  });

  it("reports a failed run, and a reply whose delivery failed, as run failures", async () => {
    onReceive = async (_message, inboundId) => {
      await setStatus(inboundId, "failed");
      await deliver("Sorry, something went wrong", { inboundId });
    };
    expect(await submit(request("m1"))).toMatchObject({ kind: "error", error: "run_failed" });

    onReceive = async (_message, inboundId) => deliver("Sorry, your reply could not be delivered", { chatId: "c2", inboundId, part: "n" });
    expect(await submit(request("m2", "c2"))).toMatchObject({ kind: "error", error: "run_failed" });
  });

  it("refuses a second request of a conversation while one is answered, and stops the run of one a stop cut short", async () => {
    const first = submit(request("m1"));
    expect(await submit(request("m2"))).toMatchObject({ kind: "error", error: "session_busy" });
    await adapter.stop();
    expect(await first).toMatchObject({ kind: "error", error: "unavailable" });
    // Told to come back later, the caller gets no answer from the run: it is stopped, not left to drain.
    expect(stopped).toEqual(["agent:main:api:dm:c1"]);
    expect(await submit(request("m3"))).toMatchObject({ kind: "error", error: "unavailable" });
  });

  it("stops the run of a request its caller left, and frees the conversation", async () => {
    const caller = new AbortController();
    const first = submit(request("m1"), caller.signal);
    caller.abort();
    expect(await first).toEqual({ kind: "abandoned" });
    // Stopped at once, and again once its message was queued (the first stop may have come before the run's job).
    expect(new Set(stopped)).toEqual(new Set(["agent:main:api:dm:c1"]));
    // The reply of the stopped run finds nobody waiting and is dropped.
    await deliver("too late");
    onReceive = async (_message, inboundId) => deliver("next answer", { inboundId });
    expect(await submit(request("m2"))).toEqual({ kind: "answer", text: "next answer" });
  });

  it("ends a request whose hand-over to the gateway hangs once its caller leaves", async () => {
    onReceive = () => new Promise<void>(() => {});
    const caller = new AbortController();
    const pending = submit(request("m1"), caller.signal);
    await new Promise((resolve) => setImmediate(resolve));
    caller.abort();
    expect(await pending).toEqual({ kind: "abandoned" });
  });

  it("hands nothing on for a caller that left before the request was submitted", async () => {
    const received: string[] = [];
    onReceive = async (message) => void received.push(message.messageId);
    expect(await submit(request("m1"), AbortSignal.abort())).toEqual({ kind: "abandoned" });
    expect(received).toEqual([]);
  });

  it("answers a request the bounded intake refused with a rate-limit error", async () => {
    onReceive = async (message) => adapter.intakeRefused(message, "rate_limited");
    expect(await submit(request("m1"))).toMatchObject({ kind: "error", error: "rate_limited" });
  });

  it("hands a run's stream updates to the request of its chat only", async () => {
    const seen: string[] = [];
    let own = 0;
    onReceive = async (_message, inboundId) => {
      own = inboundId;
    };
    const pending = submit(request("m1"), undefined, (text) => seen.push(text));
    // A busy acknowledgement (dropped) goes out once the request's message is known.
    await deliver("busy", { kind: "notice" });
    adapter.streamed({ inboundId: own, platform: "api", chatId: "c1", text: "Hel" });
    adapter.streamed({ inboundId: own + 100, platform: "api", chatId: "c1", text: "stale" });
    adapter.streamed({ inboundId: own, platform: "api", chatId: "other", text: "elsewhere" });
    await deliver("Hello", { inboundId: own });
    expect(await pending).toEqual({ kind: "answer", text: "Hello" });
    expect(seen).toEqual(["Hel"]);
  });
});
