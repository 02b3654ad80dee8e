import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RecordedRequest, ScriptedReply } from "./fakes/llm-server.js";
import { startSharedMachines, type SharedMachines } from "./support/shared-machines.js";
import { waitUntil } from "./support/wait-until.js";

// With HERMES_DATABASE_URL a worker on a HERMES_HOME of its own answers: the photo the gateway received is restored
// there before the run and still reaches the model as image content.

const TOKEN = "123456:SHARED-IMAGES-e2e";
const PHOTO = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from("a tiny png of a teapot")]);

let machines: SharedMachines;
beforeEach(async () => {
  const reply = (_request: RecordedRequest): ScriptedReply => ({ kind: "text", text: "A teapot." });
  machines = await startSharedMachines({ token: TOKEN, reply, env: { HERMES_MODEL_INPUT: "text,image" } });
});
afterEach(() => machines.close());

describe("images across HERMES_HOMEs with HERMES_DATABASE_URL", () => {
  it("a photo the gateway received reaches the model on a worker as image content", async () => {
    await machines.start("worker", "worker", "worker started");
    await machines.start("gateway", "gateway", '"msg":"gateway started"');
    machines.telegram.userWrites({ caption: "what is this?", photo: { content: PHOTO } });
    await waitUntil(() => machines.telegram.sent.length > 0, "the bot's answer", 60_000);
    expect(machines.telegram.sent[0]?.visible).toBe("A teapot.");

    const user = machines.llm.requests[0]?.messages.filter((m) => (m as { role: string }).role === "user").at(-1) as { content: unknown } | undefined;
    expect(user?.content).toEqual([
      { type: "text", text: expect.stringMatching(/^what is this\?\n\[Image: .* — saved at attachments\/telegram\/[^ ]+photo\.jpg; attached below\]$/) },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PHOTO.toString("base64")}` } },
    ]);
  });
});
