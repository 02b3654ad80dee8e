import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGatewayLogger, type GatewayLoggerOptions } from "./create-logger.js";

let dir = "";
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "hermes-logger-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function capture(isTTY = false): { write(text: string): void; isTTY: boolean; text(): string } {
  const chunks: string[] = [];
  return { write: (text) => void chunks.push(text), isTTY, text: () => chunks.join("") };
}

async function fileLines(name = "gateway"): Promise<Array<Record<string, unknown>>> {
  const text = await readFile(path.join(dir, `${name}.log`), "utf8");
  return text
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function logger(overrides: Partial<GatewayLoggerOptions> = {}) {
  return createGatewayLogger({ level: "debug", logsDir: dir, name: "gateway", secrets: [], colorize: false, ...overrides });
}

// Shapes that look real to the token patterns (a Telegram bot token, an OpenAI key).
const TELEGRAM_TOKEN = "123456789:AAHfake-token-for-tests_0123456789abcdef";
const OPENAI_KEY = "sk-proj-abcdefghijklmnop1234";
const CONFIGURED = "hunter2-configured-secret";

describe("the gateway log's JSON lines", () => {
  it("carry an ISO time, the level's name, the message and the fields, one object per line", async () => {
    const log = await logger();
    log.info("gateway started", { mode: "embedded", platforms: ["telegram"] });
    const text = await readFile(path.join(dir, "gateway.log"), "utf8");
    expect(text).toContain('"msg":"gateway started"');
    const [line] = await fileLines();
    expect(line).toMatchObject({ level: "info", msg: "gateway started", mode: "embedded", platforms: ["telegram"], pid: process.pid });
    expect(new Date(String(line?.time)).toISOString()).toBe(line?.time);
  });

  it("carry the bindings of child loggers (platform, sessionKey, hook, runId), each key once", async () => {
    const log = await logger();
    log.child({ platform: "telegram" }).child({ sessionKey: "agent:main:telegram:dm:7", runId: "run-1" }).warn("slow reply");
    log.child({ hook: "audit" }).error("hook failed");
    log.child({ platform: "discord" }).child({ platform: "discord" }).info("bound twice", { platform: "discord", extra: 1 });
    const [first, second] = await fileLines();
    expect(first).toMatchObject({ level: "warn", platform: "telegram", sessionKey: "agent:main:telegram:dm:7", runId: "run-1", msg: "slow reply" });
    expect(second).toMatchObject({ level: "error", hook: "audit", msg: "hook failed" });
    const text = await readFile(path.join(dir, "gateway.log"), "utf8");
    expect(text.split("\n")[2]?.match(/"platform"/g)).toHaveLength(1);
  });

  it("keep an Error's type, message and stack, also nested one level down", async () => {
    const log = await logger();
    const failure = new TypeError("cannot read the session");
    log.error("run failed", { error: failure, detail: { cause: new RangeError("too far") } });
    const [line] = await fileLines();
    const error = line?.error as Record<string, unknown>;
    expect(error).toMatchObject({ type: "TypeError", message: "cannot read the session" });
    expect(error.stack).toBe(failure.stack);
    expect(String(error.stack)).toContain("create-logger.test.ts");
    expect((line?.detail as Record<string, Record<string, unknown>>).cause).toMatchObject({ type: "RangeError", message: "too far" });
  });
});

describe("secrets in the gateway log", () => {
  const leaky = (log: Awaited<ReturnType<typeof logger>>): void => {
    log.error(`login with ${CONFIGURED} failed`, {
      url: `https://api.telegram.org/bot${TELEGRAM_TOKEN}/getMe`,
      error: new Error(`provider said: Incorrect API key provided: ${OPENAI_KEY} (${CONFIGURED})`),
      // A token at the start of a line reads `\nsk-…` once JSON-escaped, invisible to a pass over the line alone.
      body: `401 Unauthorized\n${OPENAI_KEY}`,
      token: "short-but-named-token",
      request: { headers: { authorization: "Basic dXNlcjpwYXNz" } },
    });
  };

  it("are masked in the file and in JSON on stderr, including inside error messages and stacks", async () => {
    const stderr = capture();
    const log = await logger({ secrets: [CONFIGURED], stderr, stderrLevel: "info" });
    leaky(log);
    const file = await readFile(path.join(dir, "gateway.log"), "utf8");
    for (const written of [file, stderr.text()]) {
      expect(written).toContain('"msg":"login with [REDACTED] failed"');
      for (const secret of [CONFIGURED, TELEGRAM_TOKEN, OPENAI_KEY, "short-but-named-token", "dXNlcjpwYXNz"]) expect(written).not.toContain(secret);
      expect(written).toContain('"token":"[REDACTED]"');
      expect(written).toContain('"authorization":"[REDACTED]"');
      expect(written).toContain('"body":"401 Unauthorized\\n[REDACTED]"');
    }
    const [line] = await fileLines();
    expect(String((line?.error as Record<string, unknown>).stack)).toContain("provider said: Incorrect API key provided: [REDACTED] ([REDACTED])");
  });

  it("are masked in pretty lines on a terminal, where strings are unescaped and stacks printed raw", async () => {
    const quoted = 'pa"ss\\word-9876';
    const stderr = capture(true);
    const log = await logger({ secrets: [CONFIGURED, quoted], stderr, stderrLevel: "info" });
    leaky(log);
    log.warn("retrying", { cause: new Error(`bad password ${quoted}`) });
    const pretty = stderr.text();
    expect(pretty).toContain("ERROR: login with [REDACTED] failed");
    expect(pretty).toContain("    at ");
    expect(pretty).not.toContain('{"level"');
    for (const secret of [CONFIGURED, TELEGRAM_TOKEN, OPENAI_KEY, "short-but-named-token", quoted, JSON.stringify(quoted).slice(1, -1)]) {
      expect(pretty).not.toContain(secret);
    }
    expect(await readFile(path.join(dir, "gateway.log"), "utf8")).not.toContain(JSON.stringify(quoted).slice(1, -1));
  });
});

describe("what reaches stderr", () => {
  it("only lines at or above stderrLevel, while the file gets everything at the log level", async () => {
    const stderr = capture();
    const log = await logger({ stderr, stderrLevel: "error" });
    log.debug("one");
    log.info("two");
    log.warn("three");
    log.error("four");
    expect((await fileLines()).map((line) => line.msg)).toEqual(["one", "two", "three", "four"]);
    expect(stderr.text().trimEnd().split("\n").map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual(["four"]);
  });

  it("nothing below the log level, anywhere", async () => {
    const stderr = capture();
    const log = await logger({ level: "warn", stderr, stderrLevel: "debug" });
    log.info("hidden");
    log.warn("shown");
    expect((await fileLines()).map((line) => line.msg)).toEqual(["shown"]);
    expect(stderr.text()).not.toContain("hidden");
  });

  it("nothing at all without a stderrLevel (the CLI's log)", async () => {
    const stderr = capture(true);
    const log = await logger({ stderr });
    log.error("only in the file");
    expect(stderr.text()).toBe("");
    expect((await fileLines()).map((line) => line.msg)).toEqual(["only in the file"]);
  });

  it("every line, with one note, when the logs folder cannot be created", async () => {
    const blocker = path.join(dir, "not-a-folder");
    await writeFile(blocker, "");
    const stderr = capture();
    const log = await createGatewayLogger({ level: "info", logsDir: path.join(blocker, "logs"), name: "cli", secrets: [], stderr });
    log.info("still logged");
    log.info("and again");
    const lines = stderr.text().trimEnd().split("\n");
    expect(lines[0]).toMatch(/^hermes: cannot write the log file: .*ENOTDIR/);
    expect(lines.slice(1).map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual(["still logged", "and again"]);
  });
});
