import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createJsonLogger, createMetricsRegistry } from "@hermes/agent";
import { ALL_TOOL_NAMES, DEFAULT_TOOL_NAMES, formatConfigIssues, loadConfig, startGatewayProcess } from "@hermes/gateway";
import { openStore } from "@hermes/store";
import { startLlmServer } from "./fakes/llm-server.js";
import { RecordingAdapter } from "./support/recording-adapter.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("a console-only gateway process (npm run chat) on a home with pending Telegram replies", () => {
  it("sends its own console replies and leaves the Telegram rows pending and untouched", async () => {
    const llm = await startLlmServer();
    cleanups.push(() => llm.close());
    const home = await mkdtemp(path.join(os.tmpdir(), "hermes-console-beside-"));
    cleanups.push(() => rm(home, { recursive: true, force: true }));
    const loaded = await loadConfig({
      env: { HERMES_HOME: home, HERMES_BASE_URL: llm.baseUrl, HERMES_MODEL: "scripted-model", HERMES_API_KEY: "test-key" },
      cwd: home,
      homeDir: home,
      knownTools: ALL_TOOL_NAMES,
      defaultTools: DEFAULT_TOOL_NAMES,
    });
    if (!loaded.ok) throw new Error(formatConfigIssues(loaded.errors));

    // What the Telegram gateway left in the outbox (it may be running right now, or restarting).
    const outbox = await openStore({ file: loaded.config.paths.stateDb });
    cleanups.push(() => outbox.close());
    const telegram = await outbox.deliveries.enqueue({ platform: "telegram", chatId: "100", text: "a Telegram reply", kind: "reply" });
    await outbox.deliveries.enqueue({ platform: "console", chatId: "local", text: "a console notice", kind: "notice" });

    const logs: Array<Record<string, unknown>> = [];
    const logger = createJsonLogger({ level: "info", write: (line) => void logs.push(JSON.parse(line) as Record<string, unknown>) });
    const consoleAdapter = new RecordingAdapter("console");
    const started = await startGatewayProcess({ config: loaded.config, logger, adapters: [consoleAdapter], http: false, metrics: createMetricsRegistry() });
    if (!started.ok) throw new Error(started.issue.message);
    cleanups.push(() => started.process.stop({ drainMs: 0 }));

    await vi.waitFor(() => expect(consoleAdapter.texts()).toEqual(["a console notice"]));
    await started.process.stop({ drainMs: 0 });

    expect(await outbox.deliveries.get(telegram.id)).toEqual(telegram);
    expect(logs).toContainEqual(expect.objectContaining({ msg: "pending deliveries for platforms not run here are left to the process that runs them", platforms: { telegram: 1 } }));
  });
});
