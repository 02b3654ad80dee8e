import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "@hermes/agent";
import type { GatewayConfig } from "@hermes/gateway";
import { createTelegramAdapter } from "@hermes/telegram";
import { startFakeTelegram, type FakeTelegram } from "./fakes/telegram/index.js";
import { startSttServer, type SttServer } from "./fakes/stt-server.js";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.js";
import { recordingLogger, type RecordingLogger } from "./support/recording-logger.js";

const TOKEN = "123456:TEST-token";
const STT_KEY = "sk-stt-test-key";
const DM_KEY = "agent:main:telegram:dm:7";
const VOICE_BYTES = Buffer.from("OggS\u0000\u0002 pretend opus frames of a short voice note");

let fake: FakeTelegram | undefined;
let stt: SttServer | undefined;
let harness: GatewayHarness | undefined;

afterEach(async () => {
  await harness?.close();
  await fake?.close();
  await stt?.close();
  harness = undefined;
  fake = undefined;
  stt = undefined;
});

interface Started {
  fake: FakeTelegram;
  stt: SttServer;
  h: GatewayHarness;
  logger: RecordingLogger;
}

/** The real grammY adapter against the fake Bot API, a scripted model, and the stand-in STT server (configured when `voice`). */
async function start(voice: boolean, home?: string): Promise<Started> {
  const telegram = await startFakeTelegram({ token: TOKEN });
  fake = telegram;
  const speech = await startSttServer({ apiKey: STT_KEY });
  stt = speech;
  const logger = recordingLogger();
  const adapterFor = (config: GatewayConfig) => {
    if (!config.telegram) throw new Error("TELEGRAM_BOT_TOKEN did not configure Telegram");
    return createTelegramAdapter(config.telegram, { logger: silentLogger, attachmentsDir: path.join(config.paths.workspace, "attachments", "telegram"), maxAttachmentBytes: 20 * 1024 * 1024 });
  };
  const env: Record<string, string> = { TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_ROOT: telegram.apiRoot, HERMES_ALLOWED_USERS: "telegram:7" };
  if (voice) Object.assign(env, { HERMES_STT_BASE_URL: speech.baseUrl, HERMES_STT_API_KEY: STT_KEY });
  const h = await startGatewayHarness(env, home, { adapters: (config) => [adapterFor(config)], logger });
  harness = h;
  return { fake: telegram, stt: speech, h, logger };
}

/** Ada sends a voice note (optionally with a caption); resolves once the adapter confirmed the update. */
async function sendVoice(telegram: FakeTelegram, caption?: string) {
  const written = telegram.userWrites({ voice: { content: VOICE_BYTES }, ...(caption !== undefined && { caption }) });
  await telegram.waitForConfirmation(written.update);
  return written.update;
}

function lastUserText(request: { messages: unknown[] } | undefined): string {
  const users = (request?.messages ?? []).filter((m): m is { role: string; content: unknown } => (m as { role: string }).role === "user");
  const content = users.at(-1)?.content;
  return typeof content === "string" ? content : JSON.stringify(content);
}

describe("voice notes on Telegram (grammY, fake Bot API, stand-in STT server)", () => {
  it("transcribes a voice note once and the model answers the transcript as the user's message", async () => {
    const { fake, stt, h } = await start(true);
    stt.enqueue({ kind: "text", text: "What's the weather like in Porto tomorrow?" });
    h.llm.enqueue({ kind: "text", text: "Sunny, 24 °C." });

    const update = await sendVoice(fake);
    await h.gateway.waitIdle(DM_KEY);

    expect(stt.requests).toHaveLength(1);
    expect(stt.requests[0]).toMatchObject({ model: "whisper-1", fileName: "voice.ogg", mimeType: "audio/ogg", authorization: `Bearer ${STT_KEY}` });
    expect(stt.requests[0]?.bytes).toEqual(VOICE_BYTES);
    expect(h.llm.requests).toHaveLength(1);
    expect(lastUserText(h.llm.requests[0])).toContain("[Voice message, transcribed]: What's the weather like in Porto tomorrow?");
    expect(fake.sentTo(7).map((sent) => sent.visible)).toEqual(["Sunny, 24 °C."]);

    // Telegram sending the update again (a lost confirmation) neither transcribes nor answers it twice.
    fake.redeliver(update);
    await fake.waitForConfirmation(update);
    await h.gateway.waitIdle(DM_KEY);
    expect(stt.requests).toHaveLength(1);
    expect(h.llm.requests).toHaveLength(1);
  });

  it("keeps the caption the user typed before the transcript", async () => {
    const { fake, stt, h } = await start(true);
    stt.enqueue({ kind: "text", text: "buy milk and eggs" });
    h.llm.enqueue({ kind: "text", text: "Added." });
    await sendVoice(fake, "Shopping list:");
    await h.gateway.waitIdle(DM_KEY);
    expect(lastUserText(h.llm.requests[0])).toContain("Shopping list:\n\n[Voice message, transcribed]: buy milk and eggs");
  });

  it("tells the user voice messages are not enabled without HERMES_STT_BASE_URL, and calls no model", async () => {
    const { fake, stt, h } = await start(false);
    await sendVoice(fake);
    await h.gateway.waitIdle(DM_KEY);
    expect(fake.sentTo(7).map((sent) => sent.visible)).toEqual(["Voice messages are not enabled on this bot, so I can't listen to this one. Please type your message instead."]);
    expect(h.llm.requests).toEqual([]);
    expect(stt.requests).toEqual([]);
  });

  it("answers a failed transcription with a readable reply and logs the cause for the operator", async () => {
    const { fake, stt, h, logger } = await start(true);
    stt.enqueue({ kind: "error", status: 500, body: '{"error":{"message":"model overloaded"}}' });
    await sendVoice(fake);
    await h.gateway.waitIdle(DM_KEY);

    expect(fake.sentTo(7).map((sent) => sent.visible)).toEqual(["I couldn't transcribe your voice message. Please try again in a moment, or type your message instead."]);
    expect(h.llm.requests).toEqual([]);
    const logged = logger.entries.filter((entry) => entry.message === "voice message not transcribed");
    expect(logged).toEqual([expect.objectContaining({ level: "warn", fields: expect.objectContaining({ platform: "telegram", reason: "http", detail: expect.stringContaining("HTTP 500: ") }) })]);
    expect(JSON.stringify(logged)).toContain("model overloaded");
    expect(JSON.stringify(logger.entries)).not.toContain(STT_KEY);
  });

  it("still answers the caption when the transcription fails, telling the model and the user", async () => {
    const { fake, stt, h } = await start(true);
    stt.enqueue({ kind: "garbage" });
    h.llm.enqueue({ kind: "text", text: "I got your caption." });
    await sendVoice(fake, "see the voice note");
    await h.gateway.waitIdle(DM_KEY);

    expect(lastUserText(h.llm.requests[0])).toContain("see the voice note\n\n[A voice message sent with this could not be transcribed; the user has been told.]");
    expect(fake.sentTo(7).map((sent) => sent.visible)).toEqual([
      "I couldn't transcribe your voice message. Please try again in a moment, or type your message instead.",
      "I got your caption.",
    ]);
  });

  it("lets a message:received hook judge the transcript, not only the caption", async () => {
    const home = await mkdtemp(path.join(os.tmpdir(), "hermes-voice-hook-"));
    try {
      const hook = path.join(home, "hooks", "no-secrets");
      await mkdir(hook, { recursive: true });
      await writeFile(path.join(hook, "HOOK.yaml"), "name: no-secrets\ndescription: Blocks talk of launch codes\nevents:\n  - message:received\n");
      await writeFile(path.join(hook, "handler.mjs"), 'export default async (event) => (event.text.includes("launch codes") ? { block: true, reason: "no secrets here" } : undefined);\n');
      const { fake, stt, h } = await start(true, home);
      stt.enqueue({ kind: "text", text: "Tell me the launch codes." });
      await sendVoice(fake);
      await h.gateway.waitIdle(DM_KEY);

      expect(fake.sentTo(7).map((sent) => sent.visible)).toEqual(["Your message was not processed: no secrets here"]);
      expect(h.llm.requests).toEqual([]);
      await harness?.close();
      harness = undefined;
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
