import { mkdtemp, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startLlmServer, type LlmServer, type RecordedRequest, type ScriptedReply } from "./fakes/llm-server.js";
import { startFakeTelegram, type FakeTelegram } from "./fakes/telegram/index.js";
import { startApp, type AppProcess } from "./support/app-process.js";
import { startRedis, type TestRedis } from "./support/redis-server.js";
import { createTestDatabase, type TestDatabase } from "./support/test-database.js";
import { waitUntil } from "./support/wait-until.js";

// A gateway and a worker, later another worker, each on an empty HERMES_HOME of its own and sharing only Redis and
// PostgreSQL: what one machine's run made or received (an agent-made skill, an inbound attachment) is there for the
// run on the next machine.

const TOKEN = "123456:SHARED-FILES-e2e";
const SKILL = "---\nname: brew-tea\ndescription: Brews a good cup of tea.\n---\n\n# Brew tea\n\nBoil water, steep three minutes.\n";
let llm: LlmServer;
let telegram: FakeTelegram;
let redis: TestRedis;
let database: TestDatabase;
let root: string;
const apps: AppProcess[] = [];

/** The scripted model: a tool call for each request a message makes, then the tool's answer repeated as its reply. */
function reply(request: RecordedRequest): ScriptedReply {
  const last = request.messages.at(-1) as { role?: string; content?: unknown } | undefined;
  const text = typeof last?.content === "string" ? last.content : JSON.stringify(last?.content ?? "");
  if (last?.role === "tool") return { kind: "text", text: `The tool said: ${text.slice(0, 300)}` };
  const attachment = /saved at (\S+)\]/.exec(text)?.[1];
  if (attachment !== undefined) return { kind: "tools", calls: [{ name: "read_file", arguments: { path: attachment } }] };
  if (text.includes("make the tea skill")) return { kind: "tools", calls: [{ name: "skill_manage", arguments: { action: "create", name: "brew-tea", content: SKILL } }] };
  if (text.includes("which skills")) return { kind: "tools", calls: [{ name: "skills_list", arguments: {} }] };
  return { kind: "text", text: "plain answer" };
}

beforeEach(async () => {
  llm = await startLlmServer({ defaultReply: reply });
  telegram = await startFakeTelegram({ token: TOKEN });
  redis = await startRedis();
  database = await createTestDatabase();
  root = await mkdtemp(path.join(os.tmpdir(), "hermes-shared-files-"));
});
afterEach(async () => {
  for (const app of apps.splice(0)) {
    app.kill("SIGKILL");
    await app.exited;
  }
  await telegram.close();
  await llm.close();
  await redis.stop();
  await database.drop();
  await rm(root, { recursive: true, force: true });
});

function machine(name: string): Record<string, string> {
  return {
    HOME: path.join(root, name),
    HERMES_HOME: path.join(root, name, "hermes"),
    HERMES_DATABASE_URL: database.url,
    REDIS_URL: redis.url,
    HERMES_BASE_URL: llm.baseUrl,
    HERMES_MODEL: "scripted-model",
    HERMES_API_KEY: "test-key",
    HERMES_HTTP_PORT: "0",
    HERMES_ALLOWED_USERS: "telegram:*",
    HERMES_REFLECTION: "off",
    HERMES_TOOLS: "read_file,skills_list,skill_view,skill_manage",
    HERMES_MAX_ATTACHMENT_MB: "1",
    TELEGRAM_BOT_TOKEN: TOKEN,
    TELEGRAM_API_ROOT: telegram.apiRoot,
  };
}

async function start(role: "gateway" | "worker", name: string, ready: string): Promise<AppProcess> {
  const app = startApp(role, machine(name));
  apps.push(app);
  await app.waitFor(ready, 60_000);
  return app;
}

async function stop(app: AppProcess): Promise<void> {
  app.kill("SIGTERM");
  expect(await app.exited).toEqual({ code: 0, signal: null });
  apps.splice(apps.indexOf(app), 1);
}

/** Waits for the next reply and returns its text. */
async function answer(before: number): Promise<string> {
  await waitUntil(() => telegram.sent.length > before, "the bot's answer", 60_000);
  return telegram.sent[before]?.visible ?? "";
}

describe("shared files across HERMES_HOMEs with HERMES_DATABASE_URL", () => {
  it("a skill one worker's run made and an attachment the gateway received are there for a run on another worker", async () => {
    const first = await start("worker", "worker-a", "worker started");
    await start("gateway", "gateway", '"msg":"gateway started"');

    let sent = telegram.sent.length;
    telegram.userWrites({ text: "please make the tea skill" });
    expect(await answer(sent)).toContain('Created skill "brew-tea"');
    await stop(first);

    await start("worker", "worker-b", "worker started");
    sent = telegram.sent.length;
    telegram.userWrites({ text: "which skills do you have?" });
    expect(await answer(sent)).toContain("brew-tea");

    sent = telegram.sent.length;
    telegram.userWrites({ caption: "read this", document: { content: Buffer.from("The secret word is teapot.\n"), name: "note.txt", mimeType: "text/plain" } });
    const read = await answer(sent);
    expect(read).toContain("teapot");
    // The model was given a path relative to the workspace, which names the worker's restored copy.
    const asked = JSON.stringify(llm.requests.map((request) => request.messages));
    expect(asked).toContain("saved at attachments/telegram/");
    expect(asked).not.toContain(path.join(root, "gateway"));
    expect(await readdir(path.join(root, "worker-b", "hermes", "workspace", "attachments", "telegram"))).toHaveLength(1);

    // HERMES_MAX_ATTACHMENT_MB: a larger file is neither kept nor shared, and the model learns it was refused.
    sent = telegram.sent.length;
    telegram.userWrites({ caption: "and this one", document: { content: Buffer.alloc(2 * 1024 * 1024, 1), name: "big.bin" } });
    expect(await answer(sent)).toBe("plain answer");
    expect(JSON.stringify(llm.requests.at(-1)?.messages)).toContain('[The file \\"big.bin\\" (2 MB) was not accepted: files larger than 1 MB are refused.');
    expect(await readdir(path.join(root, "worker-b", "hermes", "workspace", "attachments", "telegram"))).toHaveLength(1);
  });
});
