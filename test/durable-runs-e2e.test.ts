import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { startLlmServer, type LlmServer, type RecordedRequest, type ScriptedReply, type ScriptStep } from "./fakes/llm-server.js";
import { startApp, type AppProcess } from "./support/app-process.js";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.js";
import { startRedis, type TestRedis } from "./support/redis-server.js";
import { runCli } from "./support/run-cli.js";
import { waitUntil } from "./support/wait-until.js";

// The side effect whose count the tests check: one line appended to a file in the workspace per terminal run.
const APPEND = { name: "terminal", arguments: { command: "echo ran >> effect.txt" } };
const appendCall = (): ScriptedReply => ({ kind: "tools", calls: [APPEND] });

/**
 * The model after the crash: asked for the step that ran the command, it would phrase the command differently (so
 * a run that asked it again would append a second line); asked once the result is in, it answers.
 */
const rewordingModel = (answer: string) => (request: RecordedRequest): ScriptedReply =>
  toolResultsOf(request).length > 0
    ? { kind: "text", text: answer }
    : { kind: "tools", calls: [{ name: "terminal", arguments: { command: "echo 'ran' >> ./effect.txt" } }] };

/** Tool results the model was sent in a request, as [tool_call_id, content]. */
function toolResultsOf(request: { messages: unknown[] } | undefined): Array<[string, string]> {
  return (request?.messages ?? [])
    .filter((m): m is { role: string; tool_call_id: string; content: unknown } => (m as { role?: string }).role === "tool")
    .map((m) => [m.tool_call_id, JSON.stringify(m.content)]);
}

/** Checkpoint rows plus recorded model replies left in the database. */
function checkpointRows(database: string): number {
  const sqlite = new BetterSqlite3(database, { readonly: true });
  try {
    return (sqlite.prepare("SELECT (SELECT count(*) FROM tool_checkpoints) + (SELECT count(*) FROM run_steps) AS n").get() as { n: number }).n;
  } finally {
    sqlite.close();
  }
}

describe("durable runs in one gateway process", () => {
  let h: GatewayHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it("a run cut short after a terminal call replays its result after the restart; /retry runs the command afresh", async () => {
    const harness = await startGatewayHarness({ HERMES_ALLOWED_USERS: "telegram:7", HERMES_TOOLS: "default,terminal", HERMES_APPROVAL: "none" });
    h = harness;
    const dmKey = "agent:main:telegram:dm:100";
    const effect = path.join(harness.home, "workspace", "effect.txt");
    let hung = 0;
    harness.llm.enqueue(
      appendCall(),
      () => {
        hung += 1;
        return { kind: "hang" };
      },
      // After the restart the recorded reply of step 1 is replayed; the model is asked for step 2 only.
      rewordingModel("Appended once."),
      appendCall(),
      { kind: "text", text: "Appended again." },
    );
    await harness.adapter.userSays("Append a line to effect.txt");
    await waitUntil(() => hung === 1, "the model call after the terminal call");
    expect(await readFile(effect, "utf8")).toBe("ran\n");

    await harness.restart({ drainMs: 0 });
    await harness.gateway.waitIdle(dmKey);
    expect(harness.adapter.texts()).toEqual(["Appended once."]);
    expect(await readFile(effect, "utf8")).toBe("ran\n");
    expect(harness.llm.requests).toHaveLength(3);
    const [firstCall] = toolResultsOf(harness.llm.requests[1]);
    const [replayed] = toolResultsOf(harness.llm.requests[2]);
    expect(replayed).toEqual(firstCall);

    await harness.adapter.userSays("/retry");
    await harness.gateway.waitIdle(dmKey);
    expect(harness.adapter.texts()).toEqual(["Appended once.", "Retrying your last message…", "Appended again."]);
    expect(await readFile(effect, "utf8")).toBe("ran\nran\n");
    expect(checkpointRows(path.join(harness.home, "state.db"))).toBe(0);
  }, 60_000);
});

describe("durable runs on BullMQ workers (real redis-server, compiled worker processes)", () => {
  let redis: TestRedis | undefined;
  let llm: LlmServer | undefined;
  let home: string | undefined;
  const apps: AppProcess[] = [];
  afterEach(async () => {
    for (const app of apps.splice(0)) {
      app.kill("SIGKILL");
      await app.exited;
    }
    await llm?.close();
    await redis?.stop();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it("a worker SIGKILLed between a terminal call and the final answer: the command ran once and one reply arrives", async () => {
    redis = await startRedis();
    const server = await startLlmServer();
    llm = server;
    const folder = await mkdtemp(path.join(os.tmpdir(), "hermes-durable-"));
    home = folder;
    const env = {
      HOME: folder,
      HERMES_HOME: path.join(folder, "state"),
      HERMES_BASE_URL: server.baseUrl,
      HERMES_MODEL: "scripted-model",
      HERMES_API_KEY: "test-key",
      HERMES_TOOLS: "default,terminal",
      // Durability, not approval, is under test here (approval has its own tests).
      HERMES_APPROVAL: "none",
      REDIS_URL: redis.url,
    };
    const worker = async (): Promise<AppProcess> => {
      const app = startApp("worker", env);
      apps.push(app);
      await app.waitFor("worker started");
      return app;
    };
    const effect = path.join(folder, "state", "workspace", "effect.txt");
    let hung = 0;
    server.enqueue(
      appendCall(),
      () => {
        hung += 1;
        return { kind: "hang" };
      },
      rewordingModel("Appended exactly once."),
    );

    const first = await worker();
    const chat = runCli(["chat"], { env, stdin: "Append a line to effect.txt\n", timeoutMs: 80_000 });
    await waitUntil(() => hung === 1, "the model call after the terminal call");
    first.kill("SIGKILL");
    await first.exited;
    expect(await readFile(effect, "utf8")).toBe("ran\n");
    await worker();

    const result = await chat;
    expect(result.stdout).toBe("Appended exactly once.\n");
    expect(result.code).toBe(0);
    expect(await readFile(effect, "utf8")).toBe("ran\n");
    expect(server.requests).toHaveLength(3);
    const [original] = toolResultsOf(server.requests[1]);
    const [replayed] = toolResultsOf(server.requests[2]);
    expect(replayed).toEqual(original);
    expect(checkpointRows(path.join(folder, "state", "state.db"))).toBe(0);
  }, 90_000);

  it("a worker SIGKILLed while a delegate_task sub-agent works: its terminal command ran once and its lineage is kept once", async () => {
    redis = await startRedis();
    const server = await startLlmServer();
    llm = server;
    const folder = await mkdtemp(path.join(os.tmpdir(), "hermes-durable-"));
    home = folder;
    const env = {
      HOME: folder,
      HERMES_HOME: path.join(folder, "state"),
      HERMES_BASE_URL: server.baseUrl,
      HERMES_MODEL: "scripted-model",
      HERMES_API_KEY: "test-key",
      HERMES_TOOLS: "default,terminal",
      HERMES_APPROVAL: "none",
      REDIS_URL: redis.url,
    };
    const worker = async (): Promise<AppProcess> => {
      const app = startApp("worker", env);
      apps.push(app);
      await app.waitFor("worker started");
      return app;
    };
    const effect = path.join(folder, "state", "workspace", "effect.txt");
    let hung = 0;
    const delegating: ScriptStep = (request) => {
      const results = toolResultsOf(request);
      if (!JSON.stringify(request.messages).includes("You are a sub-agent")) {
        return results.length === 0
          ? { kind: "tools", calls: [{ id: "delegate-1", name: "delegate_task", arguments: { tasks: [{ goal: "append a line to effect.txt" }] } }] }
          : { kind: "text", text: results[0]?.[1].includes("appended it") ? "Appended exactly once." : "Something is missing." };
      }
      if (results.length === 0) return appendCall();
      if (hung === 0) {
        hung += 1;
        return { kind: "hang" };
      }
      return { kind: "text", text: `appended it: ${results[0]?.[1]}` };
    };
    server.enqueue(delegating, delegating, delegating, delegating, delegating, delegating);

    const first = await worker();
    const chat = runCli(["chat"], { env, stdin: "Append a line to effect.txt\n", timeoutMs: 80_000 });
    await waitUntil(() => hung === 1, "the sub-agent's model call after its terminal call");
    first.kill("SIGKILL");
    await first.exited;
    expect(await readFile(effect, "utf8")).toBe("ran\n");
    await worker();

    const result = await chat;
    expect(result.stdout).toBe("Appended exactly once.\n");
    expect(result.code).toBe(0);
    expect(await readFile(effect, "utf8")).toBe("ran\n");
    const subagentResults = server.requests.filter((r) => JSON.stringify(r.messages).includes("You are a sub-agent")).map(toolResultsOf).filter((r) => r.length > 0);
    expect(subagentResults).toHaveLength(2);
    expect(subagentResults[1]?.[0]?.[1]).toBe(subagentResults[0]?.[0]?.[1]);
    const database = path.join(folder, "state", "state.db");
    expect(lineageRows(database)).toEqual([{ goal: "append a line to effect.txt", status: "done" }]);
    expect(checkpointRows(database)).toBe(0);
  }, 90_000);
});

function lineageRows(database: string): Array<{ goal: string; status: string }> {
  const sqlite = new BetterSqlite3(database, { readonly: true });
  try {
    return sqlite.prepare("SELECT goal, status FROM subagent_runs").all() as Array<{ goal: string; status: string }>;
  } finally {
    sqlite.close();
  }
}
