import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startLlmServer, type LlmServer } from "./fakes/llm-server.js";
import { runCli } from "./support/run-cli.js";

let server: LlmServer;
let home: string;

beforeEach(async () => {
  server = await startLlmServer();
  home = await mkdtemp(path.join(os.tmpdir(), "hermes-cli-approval-"));
});
afterEach(async () => {
  await server.close();
  await rm(home, { recursive: true, force: true });
});

function env(): Record<string, string> {
  return {
    HOME: home,
    HERMES_HOME: path.join(home, "state"),
    HERMES_BASE_URL: server.baseUrl,
    HERMES_MODEL: "scripted-model",
    HERMES_TOOLS: "default,terminal",
  };
}

/** The tool result the model got back for its terminal call. */
function toolResultText(): string {
  return JSON.stringify(server.requests[1]?.messages ?? []);
}

describe("npm run chat asks before a terminal call", () => {
  it("reads a typed /approve while the run waits, then runs the command", async () => {
    server.enqueue({ kind: "tools", calls: [{ name: "terminal", arguments: { command: "echo approved-run" } }] }, { kind: "text", text: "Done." });
    const run = await runCli(["chat"], { env: env(), stdin: "say hi in the shell\n/approve\n" });
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split("\n");
    expect(lines[0]).toBe("**Approve this `terminal` call?**");
    expect(run.stdout).toContain("echo approved-run");
    expect(run.stdout).toContain("Approved: the `terminal` call runs now.");
    expect(lines.at(-1)).toBe("Done.");
    expect(toolResultText()).toContain("approved-run");
  });

  it("tells the model when the person denies it", async () => {
    server.enqueue({ kind: "tools", calls: [{ name: "terminal", arguments: { command: "rm -rf build" } }] }, { kind: "text", text: "Understood, I left it." });
    const run = await runCli(["chat"], { env: env(), stdin: "clean up\n/deny\n" });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Denied: the `terminal` call will not run.");
    expect(run.stdout.trim().split("\n").at(-1)).toBe("Understood, I left it.");
    expect(toolResultText()).toContain("denied this terminal call");
  });
});
