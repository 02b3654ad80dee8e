import { afterEach, describe, expect, it } from "vitest";
import { startSttServer, type SttServer } from "../../../../test/fakes/stt-server.js";
import { createTranscriber } from "./transcriber.js";

let stt: SttServer | undefined;
afterEach(async () => {
  await stt?.close();
  stt = undefined;
});

const KEY = "sk-stt-secret";
const VOICE = { bytes: Buffer.from("OggS fake opus frames"), fileName: "voice.ogg", mimeType: "audio/ogg" };

async function start(): Promise<SttServer> {
  stt = await startSttServer({ apiKey: KEY });
  return stt;
}

describe("transcriber (OpenAI-compatible /audio/transcriptions)", () => {
  it("posts the audio as the multipart `file` with the model and the bearer key, and returns the text", async () => {
    const server = await start();
    server.enqueue({ kind: "text", text: "  Remind me to buy milk.\n" });
    const transcriber = createTranscriber({ settings: { baseUrl: server.baseUrl, model: "whisper-1", apiKey: KEY } });

    expect(await transcriber.transcribe(VOICE)).toEqual({ ok: true, text: "Remind me to buy milk." });
    expect(server.requests).toEqual([
      { model: "whisper-1", responseFormat: "json", fileName: "voice.ogg", mimeType: "audio/ogg", bytes: VOICE.bytes, authorization: `Bearer ${KEY}` },
    ]);
  });

  it("reports a refused key as an HTTP failure with the body's start, never the key", async () => {
    const server = await start();
    const transcriber = createTranscriber({ settings: { baseUrl: server.baseUrl, model: "whisper-1", apiKey: "sk-wrong" } });
    const result = await transcriber.transcribe(VOICE);
    expect(result).toEqual({ ok: false, reason: "http", status: 401, detail: expect.stringContaining("HTTP 401: ") });
    expect(JSON.stringify(result)).toContain("Incorrect API key provided");
    expect(JSON.stringify(result)).not.toContain("sk-wrong");
  });

  it("reports a server error and an answer that is not JSON", async () => {
    const server = await start();
    server.enqueue({ kind: "error", status: 500, body: "upstream exploded" }, { kind: "garbage" });
    const transcriber = createTranscriber({ settings: { baseUrl: server.baseUrl, model: "whisper-1", apiKey: KEY } });
    expect(await transcriber.transcribe(VOICE)).toEqual({ ok: false, reason: "http", status: 500, detail: "HTTP 500: upstream exploded" });
    expect(await transcriber.transcribe(VOICE)).toEqual({ ok: false, reason: "bad_response", detail: "not JSON: <html>this is not JSON" });
  });

  it("gives up after its timeout", async () => {
    const server = await start();
    server.enqueue({ kind: "hang" });
    const transcriber = createTranscriber({ settings: { baseUrl: server.baseUrl, model: "whisper-1", apiKey: KEY }, timeoutMs: 200 });
    expect(await transcriber.transcribe(VOICE)).toEqual({ ok: false, reason: "timeout", detail: "no answer within 200 ms" });
  });

  it("refuses audio over the upload limit without sending it", async () => {
    const server = await start();
    const transcriber = createTranscriber({ settings: { baseUrl: server.baseUrl, model: "whisper-1", apiKey: KEY }, maxBytes: 10 });
    expect(await transcriber.transcribe(VOICE)).toMatchObject({ ok: false, reason: "too_large" });
    expect(server.requests).toEqual([]);
  });

  it("reports an endpoint that does not answer", async () => {
    const server = await start();
    const baseUrl = server.baseUrl;
    await server.close();
    const transcriber = createTranscriber({ settings: { baseUrl, model: "whisper-1" } });
    expect(await transcriber.transcribe(VOICE)).toEqual({ ok: false, reason: "network", detail: expect.stringContaining("ECONNREFUSED") });
  });

  it("sends no authorization header without a key, and a server needing none answers", async () => {
    stt = await startSttServer({ defaultReply: { kind: "text", text: "hello" } });
    const transcriber = createTranscriber({ settings: { baseUrl: stt.baseUrl, model: "whisper-large-v3" } });
    expect(await transcriber.transcribe(VOICE)).toEqual({ ok: true, text: "hello" });
    expect(stt.requests[0]?.authorization).toBeUndefined();
    expect(stt.requests[0]?.model).toBe("whisper-large-v3");
  });
});
