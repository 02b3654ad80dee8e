import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { chunkMarkdown } from "@hermes/gateway";
import { afterEach, describe, expect, it } from "vitest";
import { startApp, type AppProcess } from "./support/app-process.js";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.js";
import { RecordingAdapter } from "./support/recording-adapter.js";
import { startRedis, type TestRedis } from "./support/redis-server.js";
import { waitUntil } from "./support/wait-until.js";

const DM_KEY = "agent:main:telegram:dm:100";
const ANSWER = "Here is the plan:\n\n1. **Check** the logs\n2. Restart the service\n\nThat should do it.";

let harness: GatewayHarness | undefined;
let redis: TestRedis | undefined;
let worker: AppProcess | undefined;
let home: string | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
  if (worker) {
    worker.kill("SIGKILL");
    await worker.exited;
    worker = undefined;
  }
  await redis?.stop();
  redis = undefined;
  if (home) await rm(home, { recursive: true, force: true });
  home = undefined;
});

/** Streams `text` slowly enough that the presenter shows it before the run ends. */
function slowly(text: string) {
  return { kind: "text" as const, text, chunks: 8, delayMsBetweenChunks: 300 };
}

describe("HERMES_STREAMING=edit", () => {
  it("shows the answer in one message that is edited as it is written, ending with the whole answer", async () => {
    const adapter = new RecordingAdapter();
    harness = await startGatewayHarness({ HERMES_ALLOWED_USERS: "telegram:7", HERMES_STREAMING: "edit" }, undefined, { adapters: () => [adapter] });
    harness.llm.enqueue(slowly(ANSWER));
    await adapter.userSays("what now?");
    await harness.gateway.waitIdle(DM_KEY);

    expect(adapter.sent).toHaveLength(1);
    expect(adapter.edits.length).toBeGreaterThanOrEqual(2);
    // While it was written the text grew, shown as plain text; the final edit carries the formatted answer.
    expect(adapter.edits.at(-1)?.message).toMatchObject({ text: ANSWER, format: "markdown" });
    expect(adapter.visible()).toEqual([ANSWER]);
    expect(ANSWER.startsWith(adapter.sent[0]?.message.text ?? "∅")).toBe(true);
  });

  it("continues past the platform's limit in new messages, never repeating a part", async () => {
    const adapter = new RecordingAdapter("telegram", 300);
    harness = await startGatewayHarness({ HERMES_ALLOWED_USERS: "telegram:7", HERMES_STREAMING: "edit" }, undefined, { adapters: () => [adapter] });
    const long = Array.from({ length: 6 }, (_, i) => `Paragraph ${i + 1}: ${"the quick brown fox jumps over the lazy dog ".repeat(3).trim()}.`).join("\n\n");
    harness.llm.enqueue(slowly(long));
    await adapter.userSays("tell me a long story");
    await harness.gateway.waitIdle(DM_KEY);

    // Streamed messages keep room for a status line (80 of 300 here), so the final parts are cut the same way: each
    // streamed message gets a part of the answer back, none is left empty.
    const parts = chunkMarkdown(long, 220);
    expect(parts.length).toBeGreaterThan(chunkMarkdown(long, 300).length);
    expect(adapter.sent).toHaveLength(parts.length);
    expect(adapter.visible()).toEqual(parts);
  });

  it("sends the answer once, unedited, when streaming is off", async () => {
    const adapter = new RecordingAdapter();
    harness = await startGatewayHarness({ HERMES_ALLOWED_USERS: "telegram:7" }, undefined, { adapters: () => [adapter] });
    harness.llm.enqueue(slowly(ANSWER));
    await adapter.userSays("what now?");
    await harness.gateway.waitIdle(DM_KEY);
    expect(adapter.edits).toEqual([]);
    expect(adapter.texts()).toEqual([ANSWER]);
  });

  it("streams from a BullMQ worker process through Redis to the gateway", async () => {
    redis = await startRedis();
    home = await mkdtemp(path.join(os.tmpdir(), "hermes-stream-bullmq-"));
    const adapter = new RecordingAdapter();
    const shared = { HERMES_ALLOWED_USERS: "telegram:7", HERMES_STREAMING: "edit", REDIS_URL: redis.url };
    harness = await startGatewayHarness(shared, path.join(home, "state"), { adapters: () => [adapter] });
    worker = startApp("worker", { ...shared, HOME: home, HERMES_HOME: path.join(home, "state"), HERMES_BASE_URL: harness.llm.baseUrl, HERMES_MODEL: "scripted-model", HERMES_API_KEY: "test-key" });
    await worker.waitFor("worker started");
    harness.llm.enqueue(slowly(ANSWER));
    await adapter.userSays("what now?");
    await waitUntil(() => adapter.visible()[0] === ANSWER, "the streamed answer in full", 30_000);
    await harness.gateway.waitIdle(DM_KEY);

    expect(adapter.sent).toHaveLength(1);
    expect(adapter.edits.length).toBeGreaterThanOrEqual(2);
    expect(adapter.visible()).toEqual([ANSWER]);
  });
});
