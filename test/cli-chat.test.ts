import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startLlmServer, type LlmServer } from "./fakes/llm-server.js";
import { runCli } from "./support/run-cli.js";

let server: LlmServer;
let home: string;

beforeEach(async () => {
  server = await startLlmServer();
  home = await mkdtemp(path.join(os.tmpdir(), "hermes-cli-"));
});
afterEach(async () => {
  await server.close();
  await rm(home, { recursive: true, force: true });
});

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    HOME: home,
    HERMES_HOME: path.join(home, "state"),
    HERMES_BASE_URL: server.baseUrl,
    HERMES_MODEL: "scripted-model",
    HERMES_API_KEY: "sk-cli-test-secret-123456",
    ...extra,
  };
}

describe("npm run chat (piped)", () => {
  it("answers each line in order, keeps the conversation, and exits 0 after the last answer", async () => {
    server.enqueue(
      { kind: "tools", calls: [{ name: "think", arguments: { thought: "2+2" } }] },
      { kind: "text", text: "Four." },
      { kind: "text", text: "Forty." },
    );
    const run = await runCli([], { npmScript: "chat", env: env(), stdin: "What is 2+2?\n\n  \nAnd times 10?\n" });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Four.\nForty.\n");
    expect(server.requests).toHaveLength(3);
    const lastMessages = JSON.stringify(server.requests[2]?.messages);
    expect(lastMessages).toContain("What is 2+2?");
    expect(lastMessages).toContain("Four.");
    expect(lastMessages).toContain("And times 10?");
  });

  it("continues the same conversation the next time the chat starts", async () => {
    server.enqueue({ kind: "text", text: "Noted: blue." }, { kind: "text", text: "You like blue." });
    const first = await runCli(["chat"], { env: env(), stdin: "My favourite colour is blue.\n" });
    expect(first.stdout).toBe("Noted: blue.\n");
    const second = await runCli(["chat"], { env: env(), stdin: "What colour do I like?\n" });
    expect(second.stdout).toBe("You like blue.\n");
    expect(JSON.stringify(server.requests[1]?.messages)).toContain("My favourite colour is blue.");
  });

  it("answers a provider failure in-band, logs it, and keeps secrets out of both", async () => {
    server.enqueue({ kind: "error", status: 401, body: { error: { message: "Incorrect API key provided: sk-cli-test-secret-123456" } } });
    const run = await runCli(["chat"], { env: env(), stdin: "hello\n" });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/API key/);
    expect(run.stdout.trim().split("\n")).toHaveLength(1);
    const log = await readFile(path.join(home, "state", "logs", "chat.log"), "utf8");
    expect(log).toMatch(/"errorClass":"auth"/);
    expect(run.stdout + run.stderr + log).not.toContain("sk-cli-test-secret-123456");
  });

  it("exits 0 with no output for empty input", async () => {
    const run = await runCli(["chat"], { env: env(), stdin: "" });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("");
  });

  it("stops on SIGTERM while the model is still answering", async () => {
    server.enqueue({ kind: "hang" });
    const run = await runCli(["chat"], {
      env: env(),
      onSpawn: (child) => {
        const poll = setInterval(() => {
          if (server.requests.length > 0) {
            clearInterval(poll);
            child.kill("SIGTERM");
            child.kill("SIGTERM");
          }
        }, 20);
      },
      stdin: "hello\n",
    });
    expect(run.code).toBe(130);
    expect(run.stdout).toBe("Stopped.\n");
    // A stop is not a crash: the interrupted message is not answered again on the next start.
    server.enqueue({ kind: "text", text: "fresh answer" });
    const next = await runCli(["chat"], { env: env(), stdin: "something else\n" });
    expect(next.stdout).toBe("fresh answer\n");
    expect(server.requests).toHaveLength(2);
  });
  it("stops cleanly on a signal that arrives while start-up is still finishing", async () => {
    // A slow gateway:startup hook: the console takes the first message before start-up returns.
    const hook = path.join(home, "state", "hooks", "slow-start");
    await mkdir(hook, { recursive: true });
    await writeFile(path.join(hook, "HOOK.yaml"), "name: slow-start\ndescription: Takes its time at start-up\nevents:\n  - gateway:startup\n");
    await writeFile(path.join(hook, "handler.mjs"), "export default () => new Promise((resolve) => setTimeout(resolve, 1500));\n");
    server.enqueue({ kind: "hang" });
    const run = await runCli(["chat"], {
      env: env(),
      onSpawn: (child) => {
        const poll = setInterval(() => {
          if (server.requests.length > 0) {
            clearInterval(poll);
            child.kill("SIGTERM");
          }
        }, 20);
      },
      stdin: "hello\n",
    });
    expect(run.signal).toBeNull();
    expect(run.code).toBe(130);
    expect(run.stdout).toBe("Stopped.\n");
  });
});

describe("npm run chat configuration errors", () => {
  it("says exactly what to set when no model is configured, and exits 2", async () => {
    const run = await runCli(["chat"], { env: { HOME: home, HERMES_HOME: path.join(home, "state") }, stdin: "hi\n" });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("HERMES_MODEL=");
    expect(run.stderr).toContain("ANTHROPIC_API_KEY");
    expect(run.stderr).toContain("HERMES_BASE_URL=http://127.0.0.1:11434/v1");
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it("names each invalid setting without a stack trace", async () => {
    const run = await runCli(["chat"], { env: env({ HERMES_HTTP_PORT: "abc", HERMES_TOOLS: "think,rm_rf" }), stdin: "hi\n" });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("HERMES_HTTP_PORT");
    expect(run.stderr).toContain("HERMES_TOOLS");
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(server.requests).toHaveLength(0);
  });

  it("names the missing provider key for a hosted model", async () => {
    const run = await runCli(["chat"], { env: { HOME: home, HERMES_HOME: path.join(home, "state"), HERMES_MODEL: "anthropic/claude-sonnet-4-5" }, stdin: "hi\n" });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("ANTHROPIC_API_KEY");
  });

  it("reads the model from a .env file in the working folder", async () => {
    const project = await mkdtemp(path.join(os.tmpdir(), "hermes-cli-cwd-"));
    try {
      await writeFile(path.join(project, ".env"), `HERMES_BASE_URL=${server.baseUrl}\nHERMES_MODEL=scripted-model\n`);
      server.enqueue({ kind: "text", text: "configured by .env" });
      const run = await runCli(["chat"], { cwd: project, env: { HOME: home, HERMES_HOME: path.join(home, "state") }, stdin: "hi\n" });
      expect(run.code).toBe(0);
      expect(run.stdout).toBe("configured by .env\n");
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  });
});
