import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createJsonLogger, createMetricsRegistry } from "@hermes/agent";
import { ALL_TOOL_NAMES, DEFAULT_TOOL_NAMES, formatConfigIssues, loadConfig, startGatewayProcess, type GatewayProcess } from "@hermes/gateway";
import { startLlmServer, type LlmServer } from "./fakes/llm-server.js";
import { RecordingAdapter } from "./support/recording-adapter.js";

type LogLine = { level: string; msg: string } & Record<string, unknown>;

const ADA_DM = { user: { id: "7", name: "Ada Lovelace" }, chat: { id: "7", type: "dm" as const } };
const DM_KEY = "agent:main:telegram:dm:7";
const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A gateway with reflection after every turn, whose log lines the test reads (the reviews report only there). */
async function start(): Promise<{ llm: LlmServer; home: string; adapter: RecordingAdapter; gateway: GatewayProcess; logs: LogLine[] }> {
  const llm = await startLlmServer();
  cleanups.push(() => llm.close());
  const home = await mkdtemp(path.join(os.tmpdir(), "hermes-reflect-"));
  cleanups.push(() => rm(home, { recursive: true, force: true }));
  const loaded = await loadConfig({
    env: { HERMES_HOME: home, HERMES_BASE_URL: llm.baseUrl, HERMES_MODEL: "scripted-model", HERMES_API_KEY: "test-key", HERMES_ALLOWED_USERS: "telegram:7", HERMES_REFLECTION_INTERVAL: "1" },
    cwd: home,
    homeDir: home,
    knownTools: ALL_TOOL_NAMES,
    defaultTools: DEFAULT_TOOL_NAMES,
  });
  if (!loaded.ok) throw new Error(formatConfigIssues(loaded.errors));
  const logs: LogLine[] = [];
  const logger = createJsonLogger({ level: "info", write: (line) => void logs.push(JSON.parse(line) as LogLine) });
  const adapter = new RecordingAdapter();
  const started = await startGatewayProcess({ config: loaded.config, logger, adapters: [adapter], http: false, metrics: createMetricsRegistry() });
  if (!started.ok) throw new Error(started.issue.message);
  cleanups.push(() => started.process.stop({ drainMs: 0 }));
  return { llm, home, adapter, gateway: started.process, logs };
}

async function reviewFinished(logs: readonly LogLine[], mode: string, timeoutMs = 8_000): Promise<LogLine> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const line = logs.find((entry) => entry.msg === "background review finished" && entry.mode === mode);
    if (line) return line;
    if (Date.now() > deadline) throw new Error(`no ${mode} review finished in time`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const auditReply = (recency: "covered" | "missing") => ({
  kind: "text" as const,
  text: JSON.stringify({
    dimensions: [
      { id: "sources-cited", status: "covered", evidence: "links given" },
      { id: "recency-checked", status: recency, evidence: recency === "covered" ? "dates given" : "no dates" },
    ],
    learnings: [],
  }),
});

describe("reflection in a DM keeps the sender's name out of the skills it writes", () => {
  it("writes the template instead of a generated skill that names the person, whose name only the gateway knew", async () => {
    const { llm, home, adapter, gateway, logs } = await start();
    // Reviews take turns: the first is a memory review (nothing to learn, nothing to curate), the second a skill one.
    llm.enqueue({ kind: "text", text: "Here is what recent studies on sleep say, with links." }, auditReply("covered"));
    await adapter.userSays("Please research the latest studies on sleep and cite your sources.", ADA_DM);
    await gateway.waitIdle(DM_KEY);
    await reviewFinished(logs, "memory");

    const namedBody = "## Steps\n\n1. Ask Lovelace which studies she already read.\n2. Give the publication date of every source.\n";
    llm.enqueue({ kind: "text", text: "Here are the newest fasting studies, with links." }, auditReply("missing"), { kind: "text", text: namedBody });
    await adapter.userSays("Now research the newest studies on fasting, with sources.", ADA_DM);
    await gateway.waitIdle(DM_KEY);
    const review = await reviewFinished(logs, "skill");

    // The transcript never names her: in a DM the gateway passed her name to the review itself.
    expect(JSON.stringify(llm.requests.map((request) => request.messages))).not.toContain("Lovelace");
    expect(logs).toContainEqual(expect.objectContaining({ msg: "generated skill carried personal data; using the template", kind: "name" }));
    expect(review.skillsCreated).toBe(1);
    const [skill] = await readdir(path.join(home, "skills"));
    const written = await readFile(path.join(home, "skills", skill ?? "", "SKILL.md"), "utf8");
    expect(written).toContain("Recency checked");
    expect(written).not.toContain("Lovelace");
    expect(llm.requests).toHaveLength(5);
  });
});
