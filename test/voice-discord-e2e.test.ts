import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "@hermes/agent";
import type { GatewayConfig, PlatformAdapter } from "@hermes/gateway";
import { createDiscordAdapter } from "@hermes/discord";
import { startDiscordFake, type DiscordFake } from "./fakes/discord/index.js";
import { startSttServer, type SttServer } from "./fakes/stt-server.js";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.js";

const STT_KEY = "sk-stt-discord";
const VOICE = Buffer.from("OggS pretend opus frames of a Discord voice message");

let fake: DiscordFake | undefined;
let stt: SttServer | undefined;
let h: GatewayHarness | undefined;

afterEach(async () => {
  await h?.close();
  await fake?.close();
  await stt?.close();
  h = undefined;
  fake = undefined;
  stt = undefined;
});

function userTexts(request: { messages: unknown[] } | undefined): string[] {
  return (request?.messages ?? [])
    .filter((m): m is { role: string; content: unknown } => (m as { role?: unknown }).role === "user")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
}

describe("voice messages on Discord (discord.js, fake Discord, stand-in STT server)", () => {
  it("transcribes a voice message (an audio/ogg attachment without text) and the model answers the transcript", async () => {
    const discord = await startDiscordFake();
    fake = discord;
    stt = await startSttServer({ apiKey: STT_KEY });
    discord.addGuild({ name: "Hermes Lab", channels: ["general"], roles: [], botRoles: [] });
    const ada = discord.addUser("ada", { globalName: "Ada" });
    const adapters = (config: GatewayConfig): PlatformAdapter[] => {
      if (!config.discord) throw new Error("DISCORD_BOT_TOKEN did not enable Discord");
      return [createDiscordAdapter(config.discord, { logger: silentLogger, attachmentsDir: path.join(config.paths.workspace, "attachments", "discord") })];
    };
    h = await startGatewayHarness(
      { DISCORD_BOT_TOKEN: discord.token, DISCORD_API_URL: discord.apiUrl, DISCORD_ALLOWED_USERS: ada.id, HERMES_STT_BASE_URL: stt.baseUrl, HERMES_STT_API_KEY: STT_KEY, HERMES_STT_MODEL: "whisper-large-v3" },
      undefined,
      { adapters },
    );
    stt.enqueue({ kind: "text", text: "Play something relaxing." });
    h.llm.enqueue({ kind: "text", text: "How about some jazz?" });

    const dm = discord.postDm(ada, "", { attachments: [{ name: "voice-message.ogg", data: VOICE, contentType: "audio/ogg" }] });
    await discord.waitForSent(1);
    await h.gateway.waitIdle(`agent:main:discord:dm:${dm.channelId}`);

    expect(stt.requests).toEqual([expect.objectContaining({ model: "whisper-large-v3", fileName: "voice-message.ogg", mimeType: "audio/ogg", bytes: VOICE })]);
    expect(userTexts(h.llm.requests[0]).join("\n")).toContain("[Voice message, transcribed]: Play something relaxing.");
    expect(discord.sentTo(dm.channelId).map((m) => m.content)).toEqual(["How about some jazz?"]);
  });
});
