import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import net from "node:net";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "@hermes/agent";
import { webApi } from "@slack/bolt";
import { startLossyProxy, type LossyProxy } from "../../../test/fakes/lossy-proxy.js";
import { startFakeSlack, type FakeSlack } from "../../../test/fakes/slack/fake-slack.js";
import { createSlackAdapter, type SlackAdapter } from "./slack-adapter.js";
import { webApiFailure } from "./web-api-failure.js";

let fake: FakeSlack;
let proxy: LossyProxy;
let dir: string;
let adapter: SlackAdapter | undefined;

beforeEach(async () => {
  fake = await startFakeSlack();
  proxy = await startLossyProxy(fake.apiUrl);
  dir = await mkdtemp(path.join(os.tmpdir(), "hermes-"));
});

afterEach(async () => {
  await adapter?.stop();
  adapter = undefined;
  await proxy.close();
  await fake.close();
  await rm(dir, { recursive: true, force: true });
});

describe("SlackAdapter: sends whose outcome is unknown", () => {
  it("flags a post whose answer was lost as ambiguous; the resend shows it twice (at least once)", async () => {
    adapter = createSlackAdapter({ botToken: fake.botToken, signingSecret: "s", apiUrl: proxy.url }, { logger: silentLogger, attachmentsDir: dir });
    await adapter.start({ receive: async () => {}, reportStatus: () => {}, route: () => {} });
    expect(adapter.deliveryGuarantee).toBe("at-least-once");
    const target = { chatId: "C1", threadId: "1.1" };
    const part = { text: "Part one.", format: "plain" as const, idempotencyKey: "d3p0" };
    proxy.loseNextAnswer(/\/chat\.postMessage$/, { kind: "drop" });

    expect(await adapter.send(target, part)).toMatchObject({ ok: false, retryable: true, ambiguous: true });
    expect(fake.posted.map((message) => message.text)).toEqual(["Part one."]);
    expect(await adapter.send(target, part)).toMatchObject({ ok: true });
    expect(fake.posted.map((message) => message.text)).toEqual(["Part one.", "Part one."]);
  });

  it("flags a post that timed out waiting for Slack's answer as ambiguous", async () => {
    const client = new webApi.WebClient(fake.botToken, { slackApiUrl: `${proxy.url}/api/`, retryConfig: { retries: 0 }, timeout: 200, logger: silentBoltLogger });
    proxy.loseNextAnswer(/\/chat\.postMessage$/, { kind: "late", delayMs: 60_000 });
    const timedOut = await client.chat.postMessage({ channel: "C1", text: "hi" }).then(
      () => undefined,
      (error: unknown) => webApiFailure(error),
    );
    expect(timedOut).toMatchObject({ ok: false, retryable: true, ambiguous: true });
    expect(fake.posted.map((message) => message.text)).toEqual(["hi"]);
  });

  it("does not flag a post refused before it left: the connection was never made", async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as net.AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const client = new webApi.WebClient(fake.botToken, { slackApiUrl: `http://127.0.0.1:${port}/api/`, retryConfig: { retries: 0 }, logger: silentBoltLogger });
    const refused = await client.chat.postMessage({ channel: "C1", text: "hi" }).then(
      () => undefined,
      (error: unknown) => webApiFailure(error),
    );
    expect(refused).toMatchObject({ ok: false, retryable: true, error: expect.stringContaining("could not reach Slack") });
    expect(refused).not.toHaveProperty("ambiguous");
  });
});

const silentBoltLogger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  setLevel: () => {},
  getLevel: () => webApi.LogLevel.ERROR,
  setName: () => {},
};
