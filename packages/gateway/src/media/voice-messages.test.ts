import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createMetricsRegistry, silentLogger } from "@hermes/agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startSttServer, type SttServer } from "../../../../test/fakes/stt-server.js";
import { inbound } from "../core/testing.js";
import type { InboundAttachment } from "../core/inbound.js";
import { createTranscriber } from "./transcriber.js";
import { createVoiceMessages, NO_SPEECH_NOTICE, TRANSCRIPTION_FAILED_NOTICE, VOICE_NOT_ENABLED_NOTICE, voiceTranscriptionsMetric, type VoiceMessages } from "./voice-messages.js";

let root: string;
let workspace: string;
let stt: SttServer;

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "hermes-voice-"));
  workspace = path.join(root, "workspace");
  await mkdir(path.join(workspace, "attachments"), { recursive: true });
  stt = await startSttServer();
});
afterEach(async () => {
  await stt.close();
  await rm(root, { recursive: true, force: true });
});

function voice(options: { maxBytes?: number; enabled?: boolean } = {}): VoiceMessages {
  const transcriber = options.enabled === false ? undefined : createTranscriber({ settings: { baseUrl: stt.baseUrl, model: "whisper-1" }, ...(options.maxBytes !== undefined && { maxBytes: options.maxBytes }) });
  return createVoiceMessages({ transcriber, workspace, logger: silentLogger });
}

async function saved(name: string, content = "audio bytes"): Promise<string> {
  const file = path.join(workspace, "attachments", name);
  await writeFile(file, content);
  return file;
}

function audio(localPath: string, name = "voice.ogg"): InboundAttachment {
  return { kind: "audio", name, mimeType: "audio/ogg", localPath };
}

describe("voice messages", () => {
  it("leaves a message without audio alone, and audio that was not downloaded", async () => {
    expect(await voice().prepare(inbound({ text: "hi" }))).toBeUndefined();
    expect(await voice().prepare(inbound({ text: "", attachments: [{ kind: "audio", name: "voice.ogg" }] }))).toBeUndefined();
    expect(stt.requests).toEqual([]);
  });

  it("adds each transcript after the caption, names audio files, and marks them so they are not transcribed again", async () => {
    stt.enqueue({ kind: "text", text: "first part" }, { kind: "text", text: "la la la" });
    const photo: InboundAttachment = { kind: "image", name: "photo.jpg", localPath: await saved("photo.jpg") };
    const message = inbound({ text: "Two clips", attachments: [audio(await saved("a.ogg")), photo, audio(await saved("b.mp3"), "song.mp3")] });

    const outcome = await voice().prepare(message);
    expect(outcome).toEqual({
      run: true,
      message: {
        ...message,
        text: 'Two clips\n\n[Voice message, transcribed]: first part\n\n[Audio file "song.mp3", transcribed]: la la la',
        attachments: [{ ...message.attachments[0], transcription: "transcribed" }, photo, { ...message.attachments[2], transcription: "transcribed" }],
      },
    });
    expect(await voice().prepare(outcome?.message ?? message)).toBeUndefined();
    expect(stt.requests.map((request) => request.fileName)).toEqual(["voice.ogg", "song.mp3"]);
  });

  it("reads a path relative to the workspace (the database mode's)", async () => {
    await saved("rel.ogg", "relative bytes");
    stt.enqueue({ kind: "text", text: "from a relative path" });
    const outcome = await voice().prepare(inbound({ text: "", attachments: [audio("attachments/rel.ogg")] }));
    expect(outcome?.message.text).toBe("[Voice message, transcribed]: from a relative path");
    expect(stt.requests[0]?.bytes.toString()).toBe("relative bytes");
  });

  it("says voice is not enabled, and runs only when the user sent something else too", async () => {
    const alone = await voice({ enabled: false }).prepare(inbound({ text: "", attachments: [audio(await saved("v.ogg"))] }));
    expect(alone).toMatchObject({ run: false, notice: VOICE_NOT_ENABLED_NOTICE, message: { attachments: [{ transcription: "not_enabled" }] } });

    const captioned = await voice({ enabled: false }).prepare(inbound({ text: "listen", attachments: [audio(await saved("w.ogg"))] }));
    expect(captioned).toMatchObject({ run: true, notice: VOICE_NOT_ENABLED_NOTICE, message: { text: "listen\n\n[A voice message sent with this could not be transcribed; the user has been told.]" } });
  });

  it("tells the user once per message when transcriptions fail", async () => {
    stt.enqueue({ kind: "error", status: 503 }, { kind: "error", status: 503 });
    const outcome = await voice().prepare(inbound({ text: "", attachments: [audio(await saved("x.ogg")), audio(await saved("y.ogg"))] }));
    expect(outcome).toMatchObject({ run: false, notice: TRANSCRIPTION_FAILED_NOTICE, message: { attachments: [{ transcription: "failed" }, { transcription: "failed" }] } });
  });

  it("answers a transcript with no words with its own notice", async () => {
    stt.enqueue({ kind: "text", text: "   " });
    const outcome = await voice().prepare(inbound({ text: "", attachments: [audio(await saved("quiet.ogg"))] }));
    expect(outcome).toMatchObject({ run: false, notice: NO_SPEECH_NOTICE });
  });

  it("refuses a file over the upload limit without sending it", async () => {
    const outcome = await voice({ maxBytes: 4 }).prepare(inbound({ text: "", attachments: [audio(await saved("long.ogg", "more than four bytes"))] }));
    expect(outcome).toMatchObject({ run: false, notice: expect.stringContaining("larger than") });
    expect(stt.requests).toEqual([]);
  });

  it("reads no file outside the workspace, even through a link", async () => {
    const secret = path.join(root, "secret.txt");
    await writeFile(secret, "not for the model");
    await symlink(secret, path.join(workspace, "attachments", "link.ogg"));
    const outside = await voice().prepare(inbound({ text: "", attachments: [audio(secret)] }));
    const linked = await voice().prepare(inbound({ text: "", attachments: [audio("attachments/link.ogg")] }));
    expect([outside?.notice, linked?.notice]).toEqual([TRANSCRIPTION_FAILED_NOTICE, TRANSCRIPTION_FAILED_NOTICE]);
    expect(stt.requests).toEqual([]);
  });

  it("counts each file by outcome in hermes_voice_transcriptions_total", async () => {
    const registry = createMetricsRegistry();
    const transcriptions = voiceTranscriptionsMetric(registry);
    const transcriber = createTranscriber({ settings: { baseUrl: stt.baseUrl, model: "whisper-1" } });
    stt.enqueue({ kind: "text", text: "one" }, { kind: "error", status: 500 });
    await createVoiceMessages({ transcriber, workspace, logger: silentLogger, transcriptions }).prepare(inbound({ attachments: [audio(await saved("1.ogg")), audio(await saved("2.ogg"))] }));
    await createVoiceMessages({ workspace, logger: silentLogger, transcriptions }).prepare(inbound({ platform: "discord", attachments: [audio(await saved("3.ogg"))] }));

    const text = await registry.renderPrometheus();
    expect(text).toContain('hermes_voice_transcriptions_total{platform="telegram",outcome="transcribed"} 1');
    expect(text).toContain('hermes_voice_transcriptions_total{platform="telegram",outcome="failed"} 1');
    expect(text).toContain('hermes_voice_transcriptions_total{platform="discord",outcome="not_enabled"} 1');
  });
});
