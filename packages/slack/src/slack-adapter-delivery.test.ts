import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger, type Logger } from "@hermes/agent";
import type { AdapterContext, HttpHandler, InboundMessage } from "@hermes/gateway";
import { startFakeSlack, type FakeSlack } from "../../../test/fakes/slack/fake-slack.js";
import { slackRequestSignature } from "./request-signature.js";
import { createSlackAdapter, type SlackAdapter, type SlackAdapterDeps } from "./slack-adapter.js";

const SECRET = "delivery-secret";
const NOW_MS = 1_700_000_000_000;

let fake: FakeSlack;
let dir: string;
let adapter: SlackAdapter | undefined;

beforeEach(async () => {
  fake = await startFakeSlack();
  fake.addUser({ id: "U1", name: "ada", displayName: "Ada" });
  dir = await mkdtemp(path.join(os.tmpdir(), "hermes-"));
});

afterEach(async () => {
  await adapter?.stop();
  adapter = undefined;
  await fake.close();
  await rm(dir, { recursive: true, force: true });
});

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i += 1) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function recordingLogger(errors: string[]): Logger {
  const logger: Logger = { ...silentLogger, error: (message) => void errors.push(message), child: () => logger };
  return logger;
}

let eventCounter = 0;
function dm(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  eventCounter += 1;
  const ts = `${1_700_000_000 + eventCounter}.000100`;
  return { type: "event_callback", team_id: "T1", event_id: `EvD${eventCounter}`, event: { type: "message", channel_type: "im", channel: "D1", user: "U1", text, ts, ...extra } };
}

function signed(payload: unknown): { headers: Record<string, string>; rawBody: Buffer } {
  const rawBody = Buffer.from(JSON.stringify(payload));
  const ts = String(NOW_MS / 1000);
  return { rawBody, headers: { "content-type": "application/json", "x-slack-request-timestamp": ts, "x-slack-signature": slackRequestSignature(SECRET, ts, rawBody) } };
}

async function socketAdapter(receive: AdapterContext["receive"], logger: Logger = silentLogger): Promise<SlackAdapter> {
  adapter = createSlackAdapter({ botToken: fake.botToken, appToken: fake.appToken, apiUrl: fake.apiUrl }, { logger, attachmentsDir: dir });
  await adapter.start({ receive, reportStatus: () => {} });
  await fake.socket.waitForConnection();
  return adapter;
}

async function httpAdapter(receive: AdapterContext["receive"], deps: Partial<SlackAdapterDeps> = {}): Promise<HttpHandler> {
  const routes = new Map<string, HttpHandler>();
  adapter = createSlackAdapter(
    { botToken: fake.botToken, signingSecret: SECRET, apiUrl: fake.apiUrl },
    { logger: silentLogger, attachmentsDir: dir, now: () => NOW_MS, ackDeadlineMs: 60_000, ...deps },
  );
  await adapter.start({ receive, reportStatus: () => {}, route: (method, routePath, handler) => void routes.set(`${method} ${routePath}`, handler) });
  const handler = routes.get("POST /slack/events");
  if (!handler) throw new Error("no /slack/events route");
  return handler;
}

describe("SlackAdapter over Socket Mode: confirming envelopes", () => {
  it("confirms an envelope only once its message has been persisted", async () => {
    const persisted = deferred();
    const received: string[] = [];
    await socketAdapter(async (message) => {
      received.push(message.text);
      await persisted.promise;
    });
    const acked = fake.socket.send(dm("keep me"));
    await waitFor(() => received.length === 1, "the message handed over");
    expect(fake.socket.acks).toEqual([]);
    persisted.resolve();
    expect(await acked).toBe(fake.socket.acks[0]);
  });

  it("leaves an envelope unconfirmed when persisting fails, and handles Slack's redelivery", async () => {
    const errors: string[] = [];
    const saved: string[] = [];
    let attempts = 0;
    await socketAdapter(async (message) => {
      attempts += 1;
      if (attempts === 1) throw new Error("disk full");
      saved.push(message.text);
    }, recordingLogger(errors));
    const payload = dm("try again");
    void fake.socket.send(payload);
    await waitFor(() => errors.some((e) => e.includes("not confirmed")), "the failure to be logged");
    expect(fake.socket.acks).toEqual([]);
    const redelivered = await fake.socket.send(payload, { retryAttempt: 1, retryReason: "timeout" });
    expect(fake.socket.acks).toEqual([redelivered]);
    expect(saved).toEqual(["try again"]);
  });
});

describe("SlackAdapter: persisting within the acknowledgement deadline", () => {
  it("does not wait for a slow users.info: the message goes on with the user id", async () => {
    const received: InboundMessage[] = [];
    const handle = await httpAdapter(async (message) => void received.push(message), { nameLookupWaitMs: 0 });
    const release = fake.holdNext("users.info");
    expect((await handle(signed(dm("first")))).status).toBe(200);
    expect(received.map((m) => [m.text, m.user.id, m.user.name])).toEqual([["first", "U1", undefined]]);
    // The lookup was asked for, and Slack had still not answered when the message was handed over.
    await waitFor(() => fake.calls.some((c) => c.method === "users.info"), "the held lookup");
    release();
  });

  it("hands over files that do not download within the budget as references with a note", async () => {
    const received: InboundMessage[] = [];
    const neverAnswers: typeof fetch = (_url, init) =>
      new Promise<Response>((_resolve, reject) => init?.signal?.addEventListener("abort", () => reject(new Error("aborted"))));
    const handle = await httpAdapter(async (message) => void received.push(message), { fetch: neverAnswers, downloadBudgetMs: 10 });
    const file = { id: "F9", name: "slow.pdf", mimetype: "application/pdf", size: 10, mode: "hosted", url_private_download: `${fake.apiUrl}/files/F9/slow.pdf` };
    expect((await handle(signed(dm("see file", { subtype: "file_share", files: [file] })))).status).toBe(200);
    expect(received[0]?.attachments).toEqual([{ kind: "document", ref: "F9", name: "slow.pdf", mimeType: "application/pdf", sizeBytes: 10 }]);
    expect(received[0]?.text).toContain('The file "slow.pdf" was not downloaded: it did not arrive in time. It is still in Slack (file id F9).');
  });

  it("answers 500 for an event still being prepared when the adapter stops, so Slack delivers it again", async () => {
    const received: InboundMessage[] = [];
    const fetchStarted = deferred();
    const fetchMayAnswer = deferred();
    const slowFetch: typeof fetch = async () => {
      fetchStarted.resolve();
      await fetchMayAnswer.promise;
      return new Response("data", { status: 200, headers: { "content-type": "application/pdf" } });
    };
    const handle = await httpAdapter(async (message) => void received.push(message), { fetch: slowFetch, downloadBudgetMs: 60_000 });
    const file = { id: "F8", name: "a.pdf", mimetype: "application/pdf", size: 4, mode: "hosted", url_private_download: `${fake.apiUrl}/files/F8/a.pdf` };
    const answer = handle(signed(dm("during shutdown", { subtype: "file_share", files: [file] })));
    await fetchStarted.promise;
    await adapter?.stop();
    fetchMayAnswer.resolve();
    expect((await answer).status).toBe(500);
    expect(received).toEqual([]);
  });
});
