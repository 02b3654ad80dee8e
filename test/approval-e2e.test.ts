import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startApp, type AppProcess } from "./support/app-process.js";
import { secondRequest, terminalCall } from "./support/approval-script.js";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.js";
import { RecordingAdapter, type SentMessage } from "./support/recording-adapter.js";
import { startRedis, type TestRedis } from "./support/redis-server.js";
import { waitUntil } from "./support/wait-until.js";

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

const GROUP = { id: "-500", type: "group" as const };

async function promptOf(adapter: RecordingAdapter): Promise<{ sent: SentMessage; messageId: string }> {
  await waitUntil(() => adapter.sent.some((s) => s.message.buttons !== undefined), "the approval prompt");
  const index = adapter.sent.findIndex((s) => s.message.buttons !== undefined);
  const sent = adapter.sent[index];
  if (!sent) throw new Error("no prompt");
  return { sent, messageId: `out-${index + 1}` };
}

describe("approval of a terminal call in a group chat", () => {
  it("takes only the asker's press, edits the prompt to the outcome, and runs the command", async () => {
    const adapter = new RecordingAdapter();
    harness = await startGatewayHarness({ HERMES_ALLOWED_USERS: "telegram:7,telegram:8", HERMES_TOOLS: "default,terminal" }, undefined, { adapters: () => [adapter] });
    harness.llm.enqueue(terminalCall("echo approved-e2e"), { kind: "text", text: "Done." });
    await adapter.userSays("@bot run it", { chat: GROUP, mentionedBot: true });
    const { sent, messageId } = await promptOf(adapter);
    expect(sent.message.buttons?.map((b) => b.label)).toEqual(["Approve", "Approve for this conversation", "Deny"]);
    expect(sent.message.text).toContain("echo approved-e2e");
    const approve = sent.message.buttons?.[0]?.value ?? "";

    // Another member of the group presses Approve: refused, and the call still waits.
    await adapter.userSays(approve, { chat: GROUP, user: { id: "8", name: "Bo" }, mentionedBot: true, action: { messageId } });
    await waitUntil(() => adapter.texts().includes("Only the person whose message started this can answer it."), "the refusal");
    expect(harness.llm.requests).toHaveLength(1);

    await adapter.userSays(approve, { chat: GROUP, mentionedBot: true, action: { messageId } });
    await waitUntil(() => adapter.texts().includes("Done."), "the answer");
    expect(adapter.edits.map((e) => e.messageId)).toEqual([messageId]);
    expect(adapter.edits[0]?.message.text).toMatch(/Approved: the `terminal` call runs now\.$/);
    expect(adapter.edits[0]?.message.buttons ?? []).toEqual([]);
    expect(await secondRequest(harness)).toContain("approved-e2e");
    // The press was answered by the edit alone: no "Approved" message besides it.
    expect(adapter.texts().filter((t) => t.startsWith("Approved"))).toEqual([]);
  });

  it("with streaming, writes the answer below the prompt, not into the streamed text above it", async () => {
    const adapter = new RecordingAdapter();
    harness = await startGatewayHarness({ HERMES_ALLOWED_USERS: "telegram:7", HERMES_TOOLS: "default,terminal", HERMES_STREAMING: "edit" }, undefined, { adapters: () => [adapter] });
    harness.llm.enqueue(
      { kind: "tools", text: "Let me look at the files first.", calls: [{ name: "terminal", arguments: { command: "echo files-ok" } }] },
      { kind: "text", text: "All files are fine.", chunks: 4, delayMsBetweenChunks: 300 },
    );
    await adapter.userSays("check the files");
    const { sent, messageId } = await promptOf(adapter);
    await adapter.userSays(sent.message.buttons?.[0]?.value ?? "", { mentionedBot: true, action: { messageId } });
    await waitUntil(() => adapter.visible().includes("All files are fine."), "the answer");
    await harness.gateway.waitIdle("agent:main:telegram:dm:100");
    const visible = adapter.visible();
    const prompt = visible.findIndex((text) => text.startsWith("**`terminal` call**"));
    expect(visible.indexOf("Let me look at the files first.")).toBeLessThan(prompt);
    // The answer is a message of its own below the prompt (it notifies), and nothing is shown twice.
    expect(visible.indexOf("All files are fine.")).toBeGreaterThan(prompt);
    expect(visible.filter((text) => text.includes("Let me look"))).toHaveLength(1);
    expect(visible.filter((text) => text.includes("All files are fine."))).toHaveLength(1);
  });

  it("times out as a denial the model is told about", async () => {
    const adapter = new RecordingAdapter();
    harness = await startGatewayHarness({ HERMES_ALLOWED_USERS: "telegram:7", HERMES_TOOLS: "default,terminal", HERMES_APPROVAL_TIMEOUT_S: "1" }, undefined, { adapters: () => [adapter] });
    harness.llm.enqueue(terminalCall("echo never"), { kind: "text", text: "I did not run it." });
    await adapter.userSays("run it");
    await waitUntil(() => adapter.texts().includes("I did not run it."), "the answer");
    expect(adapter.texts()).toContain("No answer within 1 second: the `terminal` call was not run.");
    expect(await secondRequest(harness)).toContain("did not answer the approval request within 1 second");
  });
});

describe("approval with a BullMQ worker process", () => {
  it("waits on the worker for a typed /deny at the gateway, and tells the model", async () => {
    redis = await startRedis();
    home = await mkdtemp(path.join(os.tmpdir(), "hermes-approval-bullmq-"));
    const adapter = new RecordingAdapter();
    const shared = { HERMES_ALLOWED_USERS: "telegram:7", HERMES_TOOLS: "default,terminal", REDIS_URL: redis.url };
    harness = await startGatewayHarness(shared, path.join(home, "state"), { adapters: () => [adapter] });
    worker = startApp("worker", { ...shared, HOME: home, HERMES_HOME: path.join(home, "state"), HERMES_BASE_URL: harness.llm.baseUrl, HERMES_MODEL: "scripted-model", HERMES_API_KEY: "test-key" });
    await worker.waitFor("worker started");
    harness.llm.enqueue(terminalCall("rm -rf build"), { kind: "text", text: "Left it alone." });
    await adapter.userSays("clean up");
    await promptOf(adapter);
    await adapter.userSays("/deny");
    await waitUntil(() => adapter.texts().includes("Left it alone."), "the answer", 30_000);
    expect(adapter.texts()).toContain("Denied: the `terminal` call will not run.");
    expect(await secondRequest(harness)).toContain("denied this terminal call");
  });
});
