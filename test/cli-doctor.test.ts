import http from "node:http";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import net, { type AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAnthropicServer, type AnthropicServer } from "./fakes/anthropic-server.js";
import { startDiscordFake, type DiscordFake } from "./fakes/discord/index.js";
import { startLlmServer, type LlmServer } from "./fakes/llm-server.js";
import { startFakeSlack, type FakeSlack } from "./fakes/slack/fake-slack.js";
import { startFakeTelegram, type FakeTelegram } from "./fakes/telegram/index.js";
import { startRedis, type TestRedis } from "./support/redis-server.js";
import { runCli } from "./support/run-cli.js";
import { closedPort, freePort } from "./support/free-port.js";

const CHECK_NAMES = ["config", "store", "http", "model", "telegram", "discord", "slack", "redis", "hooks"];

interface DoctorReport {
  ok: boolean;
  checks: Array<{ name: string; status: "ok" | "warn" | "fail"; detail: string }>;
}

let root = "";
let llm: LlmServer;
let telegram: FakeTelegram;
let discord: DiscordFake;
let slack: FakeSlack;
let redis: TestRedis;
let anthropic: AnthropicServer;

const ANTHROPIC_KEY = "sk-ant-doctor-good-0001";
const REVOKED_KEY = "sk-ant-doctor-revoked-0002";

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "hermes-doctor-"));
  [llm, telegram, discord, slack, redis, anthropic] = await Promise.all([
    startLlmServer({ defaultReply: { kind: "text", text: "OK" } }),
    startFakeTelegram(),
    startDiscordFake(),
    startFakeSlack(),
    startRedis(),
    startAnthropicServer({ rejectedKeys: [REVOKED_KEY] }),
  ]);
});

afterAll(async () => {
  await Promise.all([llm?.close(), telegram?.close(), discord?.close(), slack?.close(), redis?.stop(), anthropic?.close()]);
  await rm(root, { recursive: true, force: true });
});

async function healthyEnv(name: string): Promise<Record<string, string>> {
  return {
    HOME: root,
    HERMES_HOME: path.join(root, name),
    HERMES_HTTP_PORT: String(await freePort()),
    HERMES_BASE_URL: llm.baseUrl,
    HERMES_MODEL: "scripted-model",
    TELEGRAM_BOT_TOKEN: telegram.token,
    TELEGRAM_API_ROOT: telegram.apiRoot,
    DISCORD_BOT_TOKEN: discord.token,
    DISCORD_API_URL: discord.apiUrl,
    SLACK_BOT_TOKEN: slack.botToken,
    SLACK_APP_TOKEN: slack.appToken,
    SLACK_API_URL: slack.apiUrl,
    REDIS_URL: redis.url,
  };
}

async function doctor(env: Record<string, string>): Promise<{ code: number | null; report: DoctorReport; stdout: string }> {
  const run = await runCli(["doctor", "--json"], { env });
  return { code: run.code, report: JSON.parse(run.stdout) as DoctorReport, stdout: run.stdout };
}

function check(report: DoctorReport, name: string): DoctorReport["checks"][number] {
  const found = report.checks.find((entry) => entry.name === name);
  if (!found) throw new Error(`no ${name} check in ${JSON.stringify(report)}`);
  return found;
}

describe("hermes doctor --json", () => {
  it("passes every check against healthy stand-ins, each contacted for real", async () => {
    const env = await healthyEnv("healthy");
    const callsBefore = llm.requests.length;
    const { code, report, stdout } = await doctor(env);
    expect(report.checks.map((entry) => entry.name)).toEqual(CHECK_NAMES);
    expect(report.checks.filter((entry) => entry.status !== "ok")).toEqual([]);
    expect(report.ok).toBe(true);
    expect(code).toBe(0);
    expect(llm.requests.length).toBe(callsBefore + 1);
    expect(telegram.callsOf("getMe").length).toBeGreaterThan(0);
    expect(slack.calls.map((call) => call.method)).toEqual(expect.arrayContaining(["auth.test", "apps.connections.open"]));
    expect(check(report, "telegram").detail).toContain(`@${telegram.bot.username}`);
    expect(check(report, "redis").detail).toBe(`127.0.0.1:${redis.port} answers PING`);
    for (const secret of [telegram.token, discord.token, slack.botToken, slack.appToken]) expect(stdout).not.toContain(secret);
  });

  it("fails the model, telegram and redis checks against broken stand-ins, naming what is wrong", async () => {
    // Ports no parallel test's server can take meanwhile: both must refuse the connection.
    const llmPort = await closedPort();
    const redisPort = await closedPort();
    const env = {
      ...(await healthyEnv("broken")),
      HERMES_BASE_URL: `http://127.0.0.1:${llmPort}/v1`,
      TELEGRAM_BOT_TOKEN: "999:refused-token",
      REDIS_URL: `redis://:hunter2@127.0.0.1:${redisPort}`,
    };
    const { code, report, stdout } = await doctor(env);
    expect(code).toBe(1);
    expect(report.ok).toBe(false);
    expect(report.checks.map((entry) => entry.name)).toEqual(CHECK_NAMES);
    expect(report.checks.filter((entry) => entry.status === "fail").map((entry) => entry.name)).toEqual(["model", "telegram", "redis"]);
    expect(check(report, "model").detail).toBe(`nothing answers at http://127.0.0.1:${llmPort}/v1: connect ECONNREFUSED 127.0.0.1:${llmPort}`);
    expect(check(report, "telegram").detail).toMatch(/^Telegram refused the token \(401 Unauthorized\)/);
    expect(check(report, "redis").detail).toBe(`cannot reach Redis at 127.0.0.1:${redisPort}: connect ECONNREFUSED 127.0.0.1:${redisPort}`);
    expect(stdout).not.toContain("refused-token");
    expect(stdout).not.toContain("hunter2");
  });

  it("suggests the right id for a mistyped model, from the endpoint's list and from the provider catalogue", async () => {
    const custom = await doctor({ ...(await healthyEnv("typo")), HERMES_MODEL: "scripted-modle" });
    expect(custom.code).toBe(1);
    expect(check(custom.report, "model")).toEqual({ name: "model", status: "fail", detail: `"scripted-modle" is not served at ${llm.baseUrl}. Did you mean "scripted-model"?` });

    const env = { ...(await healthyEnv("typo-provider")), HERMES_MODEL: "anthropic/claude-sonet-4-5", ANTHROPIC_API_KEY: "sk-test" };
    delete (env as Record<string, string | undefined>).HERMES_BASE_URL;
    const hosted = await doctor(env);
    expect(check(hosted.report, "model").status).toBe("fail");
    expect(check(hosted.report, "model").detail).toMatch(/^unknown model "claude-sonet-4-5" for provider anthropic\. Did you mean "anthropic\/claude-sonnet-4-5"/);
  });

  it("checks an Anthropic Messages endpoint over that API (HERMES_API), and names the 401 of a refused key", async () => {
    const anthropicEnv = async (name: string, key: string): Promise<Record<string, string>> => ({
      HOME: root,
      HERMES_HOME: path.join(root, name),
      HERMES_HTTP_PORT: String(await freePort()),
      HERMES_BASE_URL: anthropic.baseUrl,
      HERMES_API: "anthropic-messages",
      HERMES_MODEL: "claude-stand-in",
      HERMES_API_KEY: key,
    });
    anthropic.enqueue({ kind: "text", text: "OK" });
    const healthy = await doctor(await anthropicEnv("anthropic", ANTHROPIC_KEY));
    expect(check(healthy.report, "model")).toEqual({ name: "model", status: "ok", detail: `claude-stand-in at ${anthropic.baseUrl} answers (anthropic-messages, context 128,000 tokens)` });
    expect(anthropic.requests.at(-1)).toMatchObject({ apiKey: ANTHROPIC_KEY, status: 200, body: { model: "claude-stand-in" } });
    expect(anthropic.pending()).toBe(0);

    const refused = await doctor(await anthropicEnv("anthropic-revoked", REVOKED_KEY));
    expect(refused.code).toBe(1);
    expect(check(refused.report, "model").status).toBe("fail");
    expect(check(refused.report, "model").detail).toMatch(new RegExp(`^claude-stand-in at ${anthropic.baseUrl}: 401 .*authentication_error`));
    for (const key of [ANTHROPIC_KEY, REVOKED_KEY]) expect(healthy.stdout + refused.stdout).not.toContain(key);
  });

  it("warns when a running gateway holds the HTTP port and fails when another program does", async () => {
    const server = http.createServer((req, res) => {
      res.writeHead(req.url === "/healthz" ? 200 : 404, { "content-type": "application/json" });
      res.end(JSON.stringify({ status: "ok" }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const held = await doctor({ ...(await healthyEnv("held")), HERMES_HTTP_PORT: String(port) });
      expect(check(held.report, "http")).toMatchObject({ status: "warn", detail: expect.stringContaining(`127.0.0.1:${port} is in use by a running gateway`) });
      expect(held.report.ok).toBe(true);
      expect(held.code).toBe(0);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    const other = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    const otherPort = (other.address() as AddressInfo).port;
    try {
      const taken = await doctor({ ...(await healthyEnv("taken")), HERMES_HTTP_PORT: String(otherPort) });
      expect(check(taken.report, "http")).toMatchObject({ status: "fail", detail: expect.stringContaining("in use by another program") });
      expect(taken.code).toBe(1);
    } finally {
      await new Promise<void>((resolve) => other.close(() => resolve()));
    }
  });

  it("reports an invalid configuration as the failed config check, and unconfigured parts as not configured", async () => {
    const invalid = await doctor({ HOME: root, HERMES_HOME: path.join(root, "invalid"), HERMES_HTTP_PORT: "eighty" });
    expect(invalid.code).toBe(1);
    expect(invalid.report.ok).toBe(false);
    expect(invalid.report.checks).toEqual([{ name: "config", status: "fail", detail: expect.stringContaining("HERMES_HTTP_PORT") }]);

    const bare = await doctor({ HOME: root, HERMES_HOME: path.join(root, "bare"), HERMES_HTTP_PORT: String(await freePort()) });
    expect(check(bare.report, "model")).toMatchObject({ status: "fail", detail: expect.stringContaining("npm run hermes -- setup") });
    for (const name of ["telegram", "discord", "slack"]) expect(check(bare.report, name)).toEqual({ name, status: "ok", detail: "not configured" });
    expect(check(bare.report, "redis").detail).toMatch(/^not configured/);
  });

  it("warns and still exits when a hook's handler never finishes loading", async () => {
    const env = await healthyEnv("stuck-hook");
    const hooksDir = path.join(root, "stuck-hook", "hooks");
    await mkdir(path.join(hooksDir, "stuck"), { recursive: true });
    await writeFile(path.join(hooksDir, "stuck", "HOOK.yaml"), "name: stuck\ndescription: never loads\nevents: [message:received]\n");
    await writeFile(path.join(hooksDir, "stuck", "handler.mjs"), "await new Promise(() => {});\nexport default async () => undefined;\n");
    const { code, report } = await doctor(env);
    expect(check(report, "hooks")).toMatchObject({ status: "warn", detail: expect.stringContaining(`hooks did not finish loading within 5 s (from ${hooksDir})`) });
    expect(report.ok).toBe(true);
    expect(code).toBe(0);
  });

  it("prints one line per check without --json", async () => {
    const run = await runCli(["doctor"], { env: await healthyEnv("text") });
    expect(run.stdout).toContain("Everything needed to start is in place.");
    expect(run.code).toBe(0);
    for (const name of CHECK_NAMES) expect(run.stdout).toMatch(new RegExp(`^ok\\s+${name}\\s+\\S`, "m"));
    expect(run.stdout).toContain("Everything needed to start is in place.");
  });
});
