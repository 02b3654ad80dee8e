import { mkdtemp, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "@hermes/agent";
import type { HttpHandler, InboundMessage } from "@hermes/gateway";
import { startFakeSlack, type FakeSlack } from "../../../test/fakes/slack/fake-slack.js";
import { directMessage, eventCallback, postSlackEvent } from "../../../test/fakes/slack/slack-events.js";
import { serveAdapterRoutes } from "./adapter-routes.fixture.js";
import { createSlackAdapter, type SlackAdapter } from "./slack-adapter.js";

const SECRET = "file-gate-secret";

let fake: FakeSlack;
let dir: string;
let adapter: SlackAdapter | undefined;
let closeServer: (() => Promise<void>) | undefined;

beforeEach(async () => {
  fake = await startFakeSlack();
  fake.addUser({ id: "U_ALICE", name: "alice", displayName: "Alice" });
  dir = await mkdtemp(path.join(os.tmpdir(), "hermes-slack-gate-"));
});

afterEach(async () => {
  await adapter?.stop();
  adapter = undefined;
  await closeServer?.();
  closeServer = undefined;
  await fake.close();
  await rm(dir, { recursive: true, force: true });
});

describe("Slack and the gateway's file gate", () => {
  it("leaves the event unacknowledged, fetching nothing, while the gate cannot answer; Slack's retry is then fetched and handed over", async () => {
    const received: InboundMessage[] = [];
    const answers: Array<boolean | Error> = [new Error("database unreachable"), true];
    const routes = new Map<string, HttpHandler>();
    const slack = createSlackAdapter({ botToken: fake.botToken, signingSecret: SECRET, apiUrl: fake.apiUrl }, { logger: silentLogger, attachmentsDir: dir });
    adapter = slack;
    await slack.start({
      receive: async (message) => void received.push(message),
      reportStatus: () => undefined,
      route: (method, routePath, handler) => void routes.set(`${method} ${routePath}`, handler),
      mayFetchFiles: async () => {
        const answer = answers.shift();
        if (answer === undefined || answer instanceof Error) throw answer ?? new Error("asked too often");
        return answer;
      },
    });
    const served = await serveAdapterRoutes(routes);
    closeServer = served.close;
    const url = `${served.base}/slack/events`;
    const file = fake.addFile({ name: "notes.txt", mimetype: "text/plain", content: "approved notes" });
    const event = eventCallback(directMessage({ channel: "D_ALICE", user: "U_ALICE", text: "keep this", files: [file] }));

    const first = await postSlackEvent(url, event, { signingSecret: SECRET });
    expect(first.status).not.toBe(200);
    expect(fake.downloads).toEqual([]);
    expect(received).toEqual([]);

    const retry = await postSlackEvent(url, event, { signingSecret: SECRET, retryNum: 1 });
    expect(retry.status).toBe(200);
    expect(fake.downloads).toHaveLength(1);
    expect(received.map((m) => m.attachments.map((a) => a.localPath !== undefined))).toEqual([[true]]);
    expect(await readdir(dir)).toHaveLength(1);
  });
});
