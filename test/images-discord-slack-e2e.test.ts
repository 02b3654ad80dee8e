import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "@hermes/agent";
import type { GatewayConfig, PlatformAdapter } from "@hermes/gateway";
import { createDiscordAdapter } from "@hermes/discord";
import { createSlackAdapter } from "@hermes/slack";
import { startDiscordFake, type DiscordFake } from "./fakes/discord/index.js";
import type { RecordedRequest } from "./fakes/llm-server.js";
import { startFakeSlack, type FakeSlack } from "./fakes/slack/fake-slack.js";
import { directMessage, eventCallback, postSlackEvent } from "./fakes/slack/slack-events.js";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.js";

// Telegram's photos have their own end-to-end file (telegram-images-e2e.test.ts); these are the other two platforms.
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from("a png of a lighthouse")]);
const SIGNING_SECRET = "images-signing-secret";

let h: GatewayHarness | undefined;
let discord: DiscordFake | undefined;
let slack: FakeSlack | undefined;
afterEach(async () => {
  await h?.close();
  await discord?.close();
  await slack?.close();
  h = discord = slack = undefined;
});

type Part = { type: string; text?: string; image_url?: { url: string } };

function lastUserParts(request: RecordedRequest | undefined): Part[] {
  const user = (request?.messages ?? []).filter((m) => (m as { role: string }).role === "user").at(-1) as { content: string | Part[] } | undefined;
  return typeof user?.content === "string" ? [{ type: "text", text: user.content }] : (user?.content ?? []);
}

const expectedImage = { type: "image_url", image_url: { url: `data:image/png;base64,${PNG.toString("base64")}` } };

describe("images from Discord and Slack reach a model that sees images as image content", () => {
  it("Discord: an image attachment in a DM", async () => {
    const fake = (discord = await startDiscordFake());
    fake.addGuild({ name: "Hermes Lab", channels: ["general"], roles: [], botRoles: ["Hermes"] });
    const ada = fake.addUser("ada", { globalName: "Ada" });
    const adapters = (config: GatewayConfig): PlatformAdapter[] => {
      if (!config.discord) throw new Error("DISCORD_BOT_TOKEN did not enable Discord");
      return [createDiscordAdapter(config.discord, { logger: silentLogger, attachmentsDir: path.join(config.paths.workspace, "attachments", "discord") })];
    };
    const harness = (h = await startGatewayHarness(
      { DISCORD_BOT_TOKEN: fake.token, DISCORD_API_URL: fake.apiUrl, DISCORD_ALLOWED_USERS: ada.id, HERMES_MODEL_INPUT: "text,image" },
      undefined,
      { adapters },
    ));
    harness.llm.enqueue({ kind: "text", text: "A lighthouse." });
    const dm = fake.postDm(ada, "what is this?", { attachments: [{ name: "shot.png", data: PNG, contentType: "image/png" }] });
    await fake.waitForSent(1);
    await harness.gateway.waitIdle(`agent:main:discord:dm:${dm.channelId}`);
    const parts = lastUserParts(harness.llm.requests[0]);
    expect(parts[0]?.text).toMatch(/^what is this\?\n\[Image: image, shot\.png, image\/png, .* — saved at .*shot\.png; attached below\]$/);
    expect(parts.slice(1)).toEqual([expectedImage]);
  });

  it("Slack: a shared image file in a DM", async () => {
    const fake = (slack = await startFakeSlack());
    fake.addUser({ id: "U_ALICE", name: "alice", displayName: "Alice" });
    const harness = (h = await startGatewayHarness(
      { SLACK_BOT_TOKEN: fake.botToken, SLACK_API_URL: fake.apiUrl, SLACK_SIGNING_SECRET: SIGNING_SECRET, HERMES_HTTP_PORT: "0", HERMES_ALLOWED_USERS: "slack:U_ALICE", HERMES_MODEL_INPUT: "text,image" },
      undefined,
      {
        http: true,
        adapters: (config: GatewayConfig) => {
          if (!config.slack) throw new Error("the test configuration has no Slack settings");
          return [createSlackAdapter(config.slack, { logger: silentLogger, attachmentsDir: path.join(config.paths.workspace, "attachments", "slack") })];
        },
      },
    ));
    harness.llm.enqueue({ kind: "text", text: "A lighthouse." });
    const file = fake.addFile({ name: "shot.png", mimetype: "image/png", content: PNG });
    const port = harness.gateway.httpAddress?.port;
    await postSlackEvent(`http://127.0.0.1:${port}/slack/events`, eventCallback(directMessage({ channel: "D_ALICE", user: "U_ALICE", text: "what is this?", files: [file] })), { signingSecret: SIGNING_SECRET });
    await harness.gateway.waitIdle("agent:main:slack:dm:D_ALICE");
    const parts = lastUserParts(harness.llm.requests[0]);
    expect(parts[0]?.text).toMatch(/^what is this\?\n\[Image: image, shot\.png, image\/png, .* — saved at .*shot\.png; attached below\]$/);
    expect(parts.slice(1)).toEqual([expectedImage]);
    expect(fake.posted.map((p) => p.text)).toEqual(["A lighthouse."]);
  });
});
