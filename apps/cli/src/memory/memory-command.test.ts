import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileMemoryStorage, silentLogger } from "@hermes/agent";
import { groupChatsOf } from "@hermes/gateway";
import { openStore, type Store } from "@hermes/store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ParsedCommand } from "../cli/command-spec.js";
import { executeMemoryCommand } from "./memory-command.js";
import { MEMORY_GROUP } from "./memory-spec.js";

let home = "";
let store: Store;
beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), "hermes-memforget-"));
  store = await openStore({ file: path.join(home, "state.db") });
});
afterEach(async () => {
  await store.close();
  await rm(home, { recursive: true, force: true });
});

/** A provider plugin that logs, beside itself, which scope was asked to forget. */
const FORGET_LOG_PROVIDER = `import { appendFileSync } from "node:fs";
export class ForgetLogProvider {
  name = "forget-log";
  scopeId = "";
  constructor(context) { this.scopeId = context.scopeId; }
  async isAvailable() { return true; }
  async initialize(context) { this.scopeId = context.scopeId; }
  getToolSchemas() { return []; }
  async forget() { appendFileSync(new URL("./forgets.log", import.meta.url), "forget " + this.scopeId + "\\n"); }
}
`;

function forgetCommand(person: string): ParsedCommand {
  const spec = MEMORY_GROUP.subcommands.find((candidate) => candidate.name === "forget");
  if (!spec) throw new Error("no memory forget command");
  return { path: ["memory", "forget"], spec, values: {}, positionals: [person] };
}

describe("hermes memory forget", () => {
  it("has the provider forget the person's scope in each shared chat the state database saw them in, never another member's", async () => {
    const providers = path.join(home, "memory-providers");
    await mkdir(providers, { recursive: true });
    await writeFile(path.join(providers, "forget-log.mjs"), FORGET_LOG_PROVIDER);
    const inThread = (userId: string, messageId: string) => ({
      platform: "telegram",
      chat: { id: "-100", type: "group" },
      threadId: "7",
      user: { id: userId },
      messageId,
      text: "hello",
      attachments: [],
      mentionedBot: true,
      timestamp: 0,
    });
    const key = "agent:main:telegram:group:-100:7";
    // Alice opened the thread's session; Bob only spoke in it.
    await store.sessions.getOrCreateActive({ key, platform: "telegram", chatId: "-100", chatType: "group", threadId: "7", userId: "alice" });
    for (const inbound of [inThread("alice", "m1"), inThread("bob", "m2")]) {
      await store.inbound.recordIfNew({ platform: "telegram", messageId: inbound.messageId, payload: JSON.stringify(inbound), sessionKey: key, status: "answered" });
    }
    const output: string[] = [];
    const code = await executeMemoryCommand(forgetCommand("telegram:bob"), {
      stdout: { write: (text: string) => output.push(text) },
      stderr: { write: (text: string) => output.push(text) },
      home,
      memoryDir: path.join(home, "memory"),
      storage: fileMemoryStorage(path.join(home, "memory")),
      logger: silentLogger,
      memoryScope: "user",
      groupChatsOf: (platform, userId) => groupChatsOf(store, platform, userId),
    });
    expect({ code, output }).toEqual({ code: 0, output: ["Nothing was saved for telegram:bob; nothing to erase.\n"] });
    const forgotten = (await readFile(path.join(providers, "forgets.log"), "utf8")).trim().split("\n").sort();
    expect(forgotten).toEqual(["forget user:telegram:bob", "forget user:telegram:bob@chat:telegram:-100"]);
  });
});
