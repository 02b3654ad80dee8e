import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "@hermes/agent";
import type { GatewayConfig } from "@hermes/gateway";
import { createSlackAdapter } from "@hermes/slack";
import { startFakeSlack, type FakeSlack } from "./fakes/slack/fake-slack.js";
import { directMessage, eventCallback, postSlackEvent } from "./fakes/slack/slack-events.js";
import { startSttServer, type SttServer } from "./fakes/stt-server.js";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.js";

const SIGNING_SECRET = "voice-signing-secret";
const CLIP = Buffer.from("\u001aE\u00df\u00a3 pretend webm of a Slack audio clip");

let h: GatewayHarness | undefined;
let slack: FakeSlack | undefined;
let stt: SttServer | undefined;
afterEach(async () => {
  await h?.close();
  await slack?.close();
  await stt?.close();
  h = slack = stt = undefined;
});

describe("voice messages on Slack (Bolt, fake Slack, stand-in STT server)", () => {
  it("transcribes an audio clip shared in a DM and the model answers the transcript", async () => {
    const fake = (slack = await startFakeSlack());
    const speech = (stt = await startSttServer());
    fake.addUser({ id: "U_ALICE", name: "alice", displayName: "Alice" });
    const harness = (h = await startGatewayHarness(
      { SLACK_BOT_TOKEN: fake.botToken, SLACK_API_URL: fake.apiUrl, SLACK_SIGNING_SECRET: SIGNING_SECRET, HERMES_HTTP_PORT: "0", HERMES_ALLOWED_USERS: "slack:U_ALICE", HERMES_STT_BASE_URL: speech.baseUrl },
      undefined,
      {
        http: true,
        adapters: (config: GatewayConfig) => {
          if (!config.slack) throw new Error("the test configuration has no Slack settings");
          return [createSlackAdapter(config.slack, { logger: silentLogger, attachmentsDir: path.join(config.paths.workspace, "attachments", "slack") })];
        },
      },
    ));
    speech.enqueue({ kind: "text", text: "Summarise the standup for me." });
    harness.llm.enqueue({ kind: "text", text: "Here is the summary." });
    const file = fake.addFile({ name: "audio_message.webm", mimetype: "audio/webm", content: CLIP });
    const port = harness.gateway.httpAddress?.port;
    await postSlackEvent(`http://127.0.0.1:${port}/slack/events`, eventCallback(directMessage({ channel: "D_ALICE", user: "U_ALICE", text: "", files: [file] })), { signingSecret: SIGNING_SECRET });
    await harness.gateway.waitIdle("agent:main:slack:dm:D_ALICE");

    expect(speech.requests).toEqual([expect.objectContaining({ model: "whisper-1", fileName: "audio_message.webm", mimeType: "audio/webm", bytes: CLIP })]);
    expect(speech.requests[0]?.authorization).toBeUndefined();
    expect(JSON.stringify(harness.llm.requests[0]?.messages)).toContain("[Voice message, transcribed]: Summarise the standup for me.");
    expect(fake.posted.map((p) => p.text)).toEqual(["Here is the summary."]);
  });
});
