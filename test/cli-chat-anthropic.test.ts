import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startAnthropicServer, type AnthropicServer } from "./fakes/anthropic-server.js";
import { runCli } from "./support/run-cli.js";

const FIRST_KEY = "sk-ant-api03-firstfirstfirstfirst0001";
const SECOND_KEY = "sk-ant-api03-secondsecondsecond0002";

let server: AnthropicServer;
let home: string;

beforeEach(async () => {
  server = await startAnthropicServer({ rejectedKeys: [FIRST_KEY] });
  home = await mkdtemp(path.join(os.tmpdir(), "hermes-cli-anthropic-"));
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
    HERMES_API: "anthropic-messages",
    HERMES_MODEL: "claude-stand-in",
    HERMES_API_KEY: `${FIRST_KEY},${SECOND_KEY}`,
    ...extra,
  };
}

async function logText(): Promise<string> {
  const dir = path.join(home, "state", "logs");
  const files = await readdir(dir).catch(() => []);
  const texts = await Promise.all(files.map((file) => readFile(path.join(dir, file), "utf8")));
  return texts.join("\n");
}

describe("npm run chat against an Anthropic Messages endpoint (HERMES_API)", () => {
  it("talks Anthropic Messages, moves past a rejected key, and keeps both keys out of output and logs", async () => {
    server.enqueue({ kind: "text", text: "Hello from the Messages API." });
    const run = await runCli(["chat"], { env: env(), stdin: "hi\n" });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Hello from the Messages API.\n");
    expect(server.requests.map((r) => [r.apiKey, r.status])).toEqual([[FIRST_KEY, 401], [SECOND_KEY, 200]]);
    const everything = `${run.stdout}\n${run.stderr}\n${await logText()}`;
    expect(everything).not.toContain("firstfirst");
    expect(everything).not.toContain("secondsecond");
  });

  it("stops with exit code 2 naming HERMES_API when it is not a known protocol", async () => {
    const run = await runCli(["chat"], { env: env({ HERMES_API: "grpc" }), stdin: "hi\n" });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("HERMES_API");
    expect(run.stderr).toContain("anthropic-messages");
    expect(server.requests).toHaveLength(0);
  });
});
