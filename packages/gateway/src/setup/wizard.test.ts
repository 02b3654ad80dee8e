import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import net, { type AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { parse } from "yaml";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startAnthropicServer } from "../../../../test/fakes/anthropic-server.js";
import { startLlmServer, type LlmServer } from "../../../../test/fakes/llm-server.js";
import { startFakeTelegram, type FakeTelegram } from "../../../../test/fakes/telegram/index.js";
import type { SetupPrompter } from "./prompter.js";
import { runSetupWizard } from "./wizard.js";

// The wizard's questions answered in order, as an operator at a terminal would; a terminal cannot run in a test.
type Answer = string | boolean | string[] | undefined;

function scriptedPrompter(answers: Answer[]): { prompter: SetupPrompter; asked: string[]; said: string[] } {
  const asked: string[] = [];
  const said: string[] = [];
  const next = (message: string): Answer => {
    asked.push(message);
    if (answers.length === 0) throw new Error(`unexpected question: ${message}`);
    return answers.shift();
  };
  const validated = (question: { message: string; validate?: (value: string) => string | undefined }): string | undefined => {
    const answer = next(question.message);
    if (answer === undefined) return undefined;
    const problem = question.validate?.(String(answer));
    if (problem) throw new Error(`answer ${JSON.stringify(answer)} to "${question.message}" refused: ${problem}`);
    return String(answer);
  };
  const prompter: SetupPrompter = {
    intro: (text) => void said.push(text),
    outro: (text) => void said.push(text),
    info: (text) => void said.push(text),
    warn: (text) => void said.push(text),
    success: (text) => void said.push(text),
    text: async (question) => validated(question),
    password: async (question) => validated(question),
    select: async <T extends string>(question: { message: string; options: ReadonlyArray<{ value: T }> }) => {
      const answer = next(question.message);
      const option = question.options.find((candidate) => candidate.value === answer);
      if (answer !== undefined && !option) throw new Error(`"${String(answer)}" is not an option of "${question.message}"`);
      return option?.value;
    },
    multiselect: async <T extends string>(question: { message: string; options: ReadonlyArray<{ value: T }> }) => {
      const answer = next(question.message);
      return Array.isArray(answer) ? question.options.filter((option) => answer.includes(option.value)).map((option) => option.value) : undefined;
    },
    confirm: async (question) => {
      const answer = next(question.message);
      return typeof answer === "boolean" ? answer : undefined;
    },
    during: (_message, work) => work(),
  };
  return { prompter, asked, said };
}

let llm: LlmServer;
let telegram: FakeTelegram;
let root = "";
beforeAll(async () => {
  [llm, telegram] = await Promise.all([startLlmServer({ defaultReply: { kind: "text", text: "OK" } }), startFakeTelegram()]);
});
afterAll(async () => {
  await Promise.all([llm?.close(), telegram?.close()]);
});
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "hermes-wizard-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const env = (): Record<string, string> => ({ HERMES_HOME: path.join(root, "state"), TELEGRAM_API_ROOT: telegram.apiRoot });
const probe = { fetch: globalThis.fetch, timeoutMs: 5_000 };

describe("the setup wizard", () => {
  it("checks each answer online, offers to re-enter a refused one, and saves config.yaml with mode 0600", async () => {
    const { prompter, said } = scriptedPrompter([
      "custom",
      llm.baseUrl,
      "openai-completions",
      "scripted-modle",
      "",
      "again",
      llm.baseUrl,
      "openai-completions",
      "scripted-model",
      "",
      ["telegram"],
      "999:wrong",
      "again",
      telegram.token,
      false,
    ]);
    const outcome = await runSetupWizard({ env: env(), cwd: root, prompter, probe });
    const file = path.join(root, "state", "config.yaml");
    expect(outcome).toMatchObject({ kind: "saved", file });
    expect(said).toEqual(expect.arrayContaining([`model: "scripted-modle" is not served at ${llm.baseUrl}. Did you mean "scripted-model"?`]));
    expect(said.some((line) => line.startsWith("telegram: Telegram refused the token (401"))).toBe(true);
    expect(said.join("\n")).not.toContain(telegram.token);
    expect(parse(await readFile(file, "utf8"))).toEqual({ HERMES_MODEL: "scripted-model", HERMES_BASE_URL: llm.baseUrl, HERMES_API: "openai-completions", TELEGRAM_BOT_TOKEN: telegram.token });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it("saves an answer kept despite a failed check, and nothing when cancelled", async () => {
    const offline = `http://127.0.0.1:${await closedPort()}/v1`;
    const kept = scriptedPrompter(["custom", offline, "openai-completions", "later-model", "key-1", "keep", [], false]);
    expect(await runSetupWizard({ env: env(), cwd: root, prompter: kept.prompter, probe })).toMatchObject({ kind: "saved" });
    expect(kept.said.some((line) => line.startsWith(`model: nothing answers at ${offline}: connect ECONNREFUSED`))).toBe(true);
    expect(parse(await readFile(path.join(root, "state", "config.yaml"), "utf8"))).toEqual({ HERMES_MODEL: "later-model", HERMES_BASE_URL: offline, HERMES_API: "openai-completions", HERMES_API_KEY: "key-1" });

    const cancelled = scriptedPrompter([undefined]);
    const elsewhere = { ...env(), HERMES_HOME: path.join(root, "other") };
    expect(await runSetupWizard({ env: elsewhere, cwd: root, prompter: cancelled.prompter, probe })).toEqual({ kind: "cancelled" });
    await expect(stat(path.join(root, "other"))).rejects.toThrow(/ENOENT/);
  });

  it("warns when the environment would win over a saved setting, naming it and never its value", async () => {
    const offline = `http://127.0.0.1:${await closedPort()}/v1`;
    const { prompter, said } = scriptedPrompter(["custom", offline, "openai-completions", "later-model", "key-1", "keep", [], false]);
    expect(await runSetupWizard({ env: { ...env(), HERMES_API_KEY: "env-key" }, cwd: root, prompter, probe })).toMatchObject({ kind: "saved" });
    expect(said).toContain("Also set in the environment or .env, which win over config.yaml: HERMES_API_KEY.");
    expect(said.join("\n")).not.toContain("env-key");
  });

  it("asks which API a server speaks, checks the model over it and saves HERMES_API", async () => {
    const anthropic = await startAnthropicServer({ models: ["claude-stand-in"] });
    try {
      anthropic.enqueue({ kind: "text", text: "OK" });
      const { prompter, asked, said } = scriptedPrompter(["custom", `${anthropic.baseUrl}/v1`, "anthropic-messages", "claude-stand-in", "sk-ant-wizard-key", [], false]);
      expect(await runSetupWizard({ env: env(), cwd: root, prompter, probe })).toMatchObject({ kind: "saved" });
      expect(asked).toContain("Which API does the server speak? (HERMES_API)");
      expect(said).toContain(`model: claude-stand-in at ${anthropic.baseUrl} answers (anthropic-messages, context 128,000 tokens)`);
      expect(said.join("\n")).not.toContain("sk-ant-wizard-key");
      expect(anthropic.requests.map((request) => [request.apiKey, request.status])).toEqual([["sk-ant-wizard-key", 200], ["sk-ant-wizard-key", 200]]);
      expect(parse(await readFile(path.join(root, "state", "config.yaml"), "utf8"))).toEqual({
        HERMES_MODEL: "claude-stand-in",
        HERMES_BASE_URL: `${anthropic.baseUrl}/v1`,
        HERMES_API: "anthropic-messages",
        HERMES_API_KEY: "sk-ant-wizard-key",
      });
    } finally {
      await anthropic.close();
    }
  });
});
