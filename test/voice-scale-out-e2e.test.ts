import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RecordedRequest, ScriptedReply } from "./fakes/llm-server.js";
import { startSttServer, type SttServer } from "./fakes/stt-server.js";
import { startSharedMachines, type SharedMachines } from "./support/shared-machines.js";
import { waitUntil } from "./support/wait-until.js";

// With HERMES_DATABASE_URL and workers on machines of their own: only the gateway has the speech-to-text settings,
// and the worker that answers gets the transcript with the saved message.

const TOKEN = "123456:VOICE-scale-out";
const STT_KEY = "sk-stt-scale-out";
let machines: SharedMachines;
let stt: SttServer;

/** Repeats what it was told, so the reply shows what reached the model. */
function reply(request: RecordedRequest): ScriptedReply {
  const last = request.messages.at(-1) as { content?: unknown } | undefined;
  const text = typeof last?.content === "string" ? last.content : JSON.stringify(last?.content ?? "");
  const heard = /\[Voice message, transcribed\]: (.*)/.exec(text)?.[1];
  return { kind: "text", text: heard === undefined ? "no transcript reached me" : `You said: ${heard}` };
}

beforeEach(async () => {
  stt = await startSttServer({ apiKey: STT_KEY });
  machines = await startSharedMachines({ token: TOKEN, reply });
});
afterEach(async () => {
  await machines.close();
  await stt.close();
});

describe("voice messages with HERMES_DATABASE_URL and BullMQ workers", () => {
  it("the gateway transcribes a voice note and a worker without STT settings answers the transcript", async () => {
    await machines.start("worker", "worker-a", "worker started");
    await machines.start("gateway", "gateway", '"msg":"gateway started"', { HERMES_STT_BASE_URL: stt.baseUrl, HERMES_STT_API_KEY: STT_KEY });

    const { telegram } = machines;
    stt.enqueue({ kind: "text", text: "Turn off the lights." });
    telegram.userWrites({ voice: { content: Buffer.from("OggS a voice note across machines") } });
    await waitUntil(() => telegram.sent.length > 0, "the bot's answer", 60_000);

    expect(telegram.sent[0]?.visible).toBe("You said: Turn off the lights.");
    expect(stt.requests).toHaveLength(1);
    expect(stt.requests[0]?.bytes.toString()).toBe("OggS a voice note across machines");
  });
});
