import { readdir } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LlmServer, RecordedRequest, ScriptedReply } from "./fakes/llm-server.js";
import type { FakeTelegram } from "./fakes/telegram/index.js";
import { startSharedMachines, type SharedMachines } from "./support/shared-machines.js";
import { waitUntil } from "./support/wait-until.js";

// A gateway and a worker, later another worker, each on an empty HERMES_HOME of its own and sharing only Redis and
// PostgreSQL: what one machine's run made or received (an agent-made skill, an inbound attachment) is there for the
// run on the next machine.

const TOKEN = "123456:SHARED-FILES-e2e";
const SKILL = "---\nname: brew-tea\ndescription: Brews a good cup of tea.\n---\n\n# Brew tea\n\nBoil water, steep three minutes.\n";
let machines: SharedMachines;
let llm: LlmServer;
let telegram: FakeTelegram;
let root: string;

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
  machines = await startSharedMachines({
    token: TOKEN,
    reply,
    env: { HERMES_TOOLS: "read_file,skills_list,skill_view,skill_manage", HERMES_MAX_ATTACHMENT_MB: "1" },
  });
  ({ llm, telegram, root } = machines);
});
afterEach(() => machines.close());

const start: SharedMachines["start"] = (role, name, ready) => machines.start(role, name, ready);
const stop: SharedMachines["stop"] = (app) => machines.stop(app);

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
