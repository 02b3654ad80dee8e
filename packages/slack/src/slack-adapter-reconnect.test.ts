import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger, type Logger } from "@hermes/agent";
import type { AdapterState, InboundMessage } from "@hermes/gateway";
import { startFakeSlack, type FakeSlack } from "../../../test/fakes/slack/fake-slack.js";
import { recordingContext, stateRuns, type RecordingContext } from "../../../test/support/recording-context.js";
import { slackRequestSignature } from "./request-signature.js";
import { createSlackAdapter, type SlackAdapter } from "./slack-adapter.js";

const SECRET = "reconnect-secret";
/** Short pauses so the tests see several attempts; the doubling and the cap are those of production. */
const FAST_RETRY = { baseMs: 10, maxMs: 40 };

let fake: FakeSlack;
let dir: string;
let adapter: SlackAdapter | undefined;

beforeEach(async () => {
  fake = await startFakeSlack();
  dir = await mkdtemp(path.join(os.tmpdir(), "hermes-"));
});

afterEach(async () => {
  await adapter?.stop();
  adapter = undefined;
  await fake.close();
  await rm(dir, { recursive: true, force: true });
});

interface Harness extends Pick<RecordingContext, "statuses" | "received" | "routes"> {
  context: RecordingContext;
  warnings: { message: string; fields?: Record<string, unknown> }[];
  logger: Logger;
}

function harness(receive?: (message: InboundMessage) => Promise<void>): Harness {
  const context = recordingContext(receive ? { receive } : {});
  const warnings: Harness["warnings"] = [];
  const logger: Logger = { ...silentLogger, warn: (message, fields) => void warnings.push({ message, fields }), child: () => logger };
  return { context, statuses: context.statuses, received: context.received, routes: context.routes, warnings, logger };
}

function socketAdapter(h: Harness, apiUrl = fake.apiUrl): SlackAdapter {
  adapter = createSlackAdapter({ botToken: fake.botToken, appToken: fake.appToken, apiUrl }, { logger: h.logger, attachmentsDir: dir, retry: FAST_RETRY });
  return adapter;
}

function httpAdapter(h: Harness, apiUrl = fake.apiUrl, retry = FAST_RETRY): SlackAdapter {
  adapter = createSlackAdapter({ botToken: fake.botToken, signingSecret: SECRET, apiUrl }, { logger: h.logger, attachmentsDir: dir, retry });
  return adapter;
}

function lastState(h: Harness): AdapterState | undefined {
  return h.statuses.at(-1)?.state;
}

function callsOf(method: string): number {
  return fake.calls.filter((c) => c.method === method).length;
}

/** Polls for up to 20 s: a loaded machine can take seconds to reconnect, even with the short test pauses. */
async function waitFor(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2_000; i += 1) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

let eventCounter = 0;
function dm(text: string): Record<string, unknown> {
  eventCounter += 1;
  const ts = `${1_700_000_000 + eventCounter}.000200`;
  return { type: "event_callback", team_id: "T1", event_id: `EvR${eventCounter}`, event: { type: "message", channel_type: "im", channel: "D1", user: "U1", text, ts } };
}

function signed(payload: unknown): { headers: Record<string, string>; rawBody: Buffer } {
  const rawBody = Buffer.from(JSON.stringify(payload));
  const ts = String(Math.floor(Date.now() / 1000));
  return { rawBody, headers: { "content-type": "application/json", "x-slack-request-timestamp": ts, "x-slack-signature": slackRequestSignature(SECRET, ts, rawBody) } };
}

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("SlackAdapter: the bot token refused at start", () => {
  it("starts anyway, reports retrying with the cause, keeps trying, then connects and takes events", async () => {
    const h = harness();
    const accept = fake.failEvery("auth.test", { error: "invalid_auth" });
    await httpAdapter(h).start(h.context);
    expect(h.statuses[0]).toEqual({ state: "connecting" });
    expect(h.statuses[1]).toEqual({ state: "retrying", error: "Slack refused SLACK_BOT_TOKEN (invalid_auth)", retryAt: expect.any(Number) });
    expect(h.warnings[0]).toMatchObject({ fields: { cause: "Slack refused SLACK_BOT_TOKEN (invalid_auth)" } });

    // The route is there from the start; until Slack accepts the token, events are refused so Slack sends them again.
    const handle = h.routes.get("POST /slack/events");
    if (!handle) throw new Error("no /slack/events route");
    expect((await handle(signed(dm("too early")))).status).toBe(503);

    await waitFor(() => callsOf("auth.test") >= 3, "more auth.test attempts");
    accept();
    await waitFor(() => lastState(h) === "connected", "connected");
    expect(stateRuns(h.statuses)).toEqual(["connecting", "retrying", "connected"]);
    expect((await handle(signed(dm("now it works")))).status).toBe(200);
    expect(h.received.map((m) => m.text)).toEqual(["now it works"]);
  });

  it("names an unreachable Slack as the cause, and stop() during the backoff ends the retries", async () => {
    const h = harness();
    const slack = httpAdapter(h, `http://127.0.0.1:${await closedPort()}`, { baseMs: 60_000, maxMs: 60_000 });
    const before = Date.now();
    await slack.start(h.context);
    expect(h.statuses).toEqual([
      { state: "connecting" },
      { state: "retrying", error: expect.stringMatching(/^cannot reach Slack: connect ECONNREFUSED 127\.0\.0\.1:\d+$/), retryAt: expect.any(Number) },
    ]);
    expect(h.statuses[1]?.retryAt).toBeGreaterThan(before);
    await slack.stop();
    expect(h.statuses).toHaveLength(2);
  });

  it("reports nothing and tries no more once stopped", async () => {
    const h = harness();
    fake.failEvery("auth.test", { status: 503 });
    const slack = socketAdapter(h);
    await slack.start(h.context);
    expect(h.statuses[1]).toMatchObject({ state: "retrying", error: "Slack answered HTTP 503 to auth.test" });
    await waitFor(() => callsOf("auth.test") >= 2, "a second attempt");
    await slack.stop();
    const attempts = fake.calls.length;
    const reports = h.statuses.length;
    // Many retry periods (10–40 ms) later, nothing has moved.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(fake.calls).toHaveLength(attempts);
    expect(h.statuses).toHaveLength(reports);
    expect(callsOf("apps.connections.open")).toBe(0);
  });
});

describe("SlackAdapter over Socket Mode: staying connected", () => {
  it("reports a dropped connection as retrying, reconnects on its own and takes events again", async () => {
    const h = harness();
    await socketAdapter(h).start(h.context);
    expect(h.statuses).toEqual([{ state: "connecting" }, { state: "connected" }]);
    await fake.socket.dropConnections();
    await waitFor(() => fake.socket.greetings === 2 && lastState(h) === "connected", "the reconnect");
    expect(stateRuns(h.statuses)).toEqual(["connecting", "connected", "retrying", "connected"]);
    expect(h.statuses[2]).toEqual({ state: "retrying", error: "the Socket Mode connection closed", retryAt: expect.any(Number) });

    const acked = await fake.socket.send(dm("after the drop"));
    expect(h.received.map((m) => m.text)).toEqual(["after the drop"]);
    expect(fake.socket.acks).toEqual([acked]);
  });

  it("reconnects when Slack asks it to, naming Slack's reason", async () => {
    const h = harness();
    await socketAdapter(h).start(h.context);
    fake.socket.askToReconnect("refresh_requested");
    await waitFor(() => fake.socket.greetings === 2 && lastState(h) === "connected", "the reconnect");
    expect(h.statuses[2]).toMatchObject({ state: "retrying", error: "the Socket Mode connection closed (Slack asked the app to reconnect: refresh_requested)" });
    await fake.socket.send(dm("on the new connection"));
    expect(h.received.map((m) => m.text)).toEqual(["on the new connection"]);
  });

  it("keeps trying while Slack refuses the app token at start, then connects", async () => {
    const h = harness();
    const accept = fake.failEvery("apps.connections.open", { error: "invalid_auth" });
    await socketAdapter(h).start(h.context);
    expect(h.statuses).toEqual([{ state: "connecting" }, { state: "retrying", error: "Slack refused SLACK_APP_TOKEN (invalid_auth)", retryAt: expect.any(Number) }]);
    await waitFor(() => callsOf("apps.connections.open") >= 3, "more apps.connections.open attempts");
    accept();
    await waitFor(() => lastState(h) === "connected", "connected");
    expect(stateRuns(h.statuses)).toEqual(["connecting", "retrying", "connected"]);
    await fake.socket.send(dm("hello at last"));
    expect(h.received.map((m) => m.text)).toEqual(["hello at last"]);
  });

  it("keeps reconnecting while apps.connections.open fails after a drop", async () => {
    const h = harness();
    await socketAdapter(h).start(h.context);
    const recover = fake.failEvery("apps.connections.open", { status: 503 });
    await fake.socket.dropConnections();
    await waitFor(() => h.statuses.some((s) => s.error === "Slack answered HTTP 503 to apps.connections.open"), "the failing reconnect reported");
    await waitFor(() => callsOf("apps.connections.open") >= 4, "several reconnect attempts");
    recover();
    await waitFor(() => lastState(h) === "connected" && h.statuses.length > 2, "connected again");
    expect(stateRuns(h.statuses)).toEqual(["connecting", "connected", "retrying", "connected"]);
    expect(h.statuses.filter((s) => s.state === "retrying").length).toBeGreaterThanOrEqual(3);
    await fake.socket.send(dm("back"));
    expect(h.received.map((m) => m.text)).toEqual(["back"]);
  });

  it("hands over an event once when Slack redelivers it after a drop cut off its confirmation", async () => {
    const received: string[] = [];
    const h = harness(async (message) => {
      received.push(message.text);
      // Persisted, and then the connection goes before the envelope can be confirmed.
      if (received.length === 1) await fake.socket.dropConnections();
    });
    await socketAdapter(h).start(h.context);
    const payload = dm("only once");
    void fake.socket.send(payload);
    await waitFor(() => fake.socket.greetings === 2 && lastState(h) === "connected", "the reconnect");
    const redelivered = await fake.socket.send(payload, { retryAttempt: 1, retryReason: "timeout" });
    expect(fake.socket.acks).toEqual([redelivered]);
    expect(received).toEqual(["only once"]);
  });

  it("stops reconnecting once stopped, without reporting the close", async () => {
    const h = harness();
    const slack = socketAdapter(h);
    await slack.start(h.context);
    fake.failEvery("apps.connections.open", { status: 503 });
    await fake.socket.dropConnections();
    await waitFor(() => callsOf("apps.connections.open") >= 3, "reconnect attempts");
    await slack.stop();
    const attempts = callsOf("apps.connections.open");
    const reports = h.statuses.length;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(callsOf("apps.connections.open")).toBe(attempts);
    expect(h.statuses).toHaveLength(reports);
  });
});
