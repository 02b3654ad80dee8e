import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { readMemoryScope, silentLogger } from "@hermes/agent";
import { openStore, type Store } from "@hermes/store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGatewayMemory, type GatewayMemory } from "../agent/memory-scopes.js";
import { gatewayPaths } from "../config/load-config.js";
import type { InboundMessage } from "../core/inbound.js";
import { newSessionFor } from "../core/session-key.js";
import { findCommand } from "./registry.js";
import type { CommandContext } from "./types.js";

let home: string;
let store: Store;
let memory: GatewayMemory;

beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), "hermes-memcmd-"));
  store = await openStore({ file: path.join(home, "state.db") });
  memory = createGatewayMemory(
    { home, paths: gatewayPaths(home), memoryScope: "chat", sessionScope: { groupSessions: "per_user", threadSessions: "shared" } },
    { logger: silentLogger, toolsEnabled: true },
  );
});

afterEach(async () => {
  await memory.shutdown();
  await store.close();
  await rm(home, { recursive: true, force: true });
});

function message(userId: string, chat: { id: string; type: "dm" | "group" }): InboundMessage {
  return { platform: "telegram", chat, user: { id: userId }, messageId: "m1", text: "/forget confirm", attachments: [], mentionedBot: true, timestamp: 0 };
}

async function run(name: "forget" | "memory", inbound: InboundMessage, args: string, withMemory: GatewayMemory = memory): Promise<string> {
  const command = findCommand(name);
  if (!command) throw new Error(`no /${name} command`);
  const unused = async (): Promise<never> => {
    throw new Error("not used by /memory or /forget");
  };
  const context: CommandContext = {
    message: inbound,
    sessionKey: "key",
    args,
    store,
    queue: { enqueue: unused, stop: unused },
    hooks: { emit: unused },
    now: () => 0,
    models: { primary: "test/model" },
    checkModel: () => undefined,
    resubmit: unused,
    withSessionLock: unused,
    compress: unused,
    followUp: unused,
    authorization: "allowlist",
    sharedSession: false,
    memory: withMemory,
  };
  return command.run(context);
}

async function remember(inbound: InboundMessage, fact: string): Promise<void> {
  const run = await memory.forMessage(inbound, "s1");
  const added = await run.manager.add("memory", fact);
  expect(added.ok).toBe(true);
}

describe("/forget with HERMES_MEMORY_SCOPE=chat", () => {
  it("in a group, one member cannot erase the memory the whole chat shares", async () => {
    const inGroup = message("1", { id: "-100", type: "group" });
    await remember(inGroup, "the group meets on Mondays");
    expect(await run("forget", inGroup, "confirm")).toContain("Nothing was erased");
    expect((await readMemoryScope(memory.scopeOf(inGroup))).memory?.entries).toEqual(["the group meets on Mondays"]);
  });

  it("in a group, /memory labels both files as the chat's and does not offer /forget", async () => {
    const inGroup = message("1", { id: "-100", type: "group" });
    const added = await (await memory.forMessage(inGroup, "s1")).manager.add("user", "Bob is vegetarian");
    expect(added.ok).toBe(true);
    const shown = await run("memory", inGroup, "");
    expect(shown).toContain("About the people in this chat (shared by this chat, USER.md):\n§ Bob is vegetarian");
    expect(shown).not.toContain("About you");
    expect(shown).toContain("only the bot's operator can erase them");
  });

  it("in a DM, the chat's pair is the person's own and is erased", async () => {
    const dm = message("1", { id: "1", type: "dm" });
    await remember(dm, "likes tea");
    expect(await run("forget", dm, "")).toContain("/forget confirm");
    expect(await run("forget", dm, "confirm")).toContain("Done");
    expect((await readMemoryScope(memory.scopeOf(dm))).memory?.entries).toEqual([]);
  });
});

/** A provider plugin that logs, beside itself, which scope was asked to forget (and shut down). */
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

describe("/forget with HERMES_MEMORY_SCOPE=user after a restart", () => {
  it("tells the provider to forget the person's scope in each shared chat the store saw them in, never another member's", async () => {
    const providers = path.join(home, "memory-providers");
    await mkdir(providers, { recursive: true });
    await writeFile(path.join(providers, "forget-log.mjs"), FORGET_LOG_PROVIDER);
    const inThread = (userId: string, messageId: string): InboundMessage => ({ ...message(userId, { id: "-100", type: "group" }), threadId: "7", messageId });
    // Alice opened the shared thread; Bob only spoke in it later, so the session's record names Alice alone.
    const key = "agent:main:telegram:group:-100:7";
    await store.sessions.getOrCreateActive(newSessionFor(inThread("alice", "m1"), key));
    for (const inbound of [inThread("alice", "m1"), inThread("bob", "m2")]) {
      await store.inbound.recordIfNew({ platform: "telegram", messageId: inbound.messageId, payload: JSON.stringify(inbound), sessionKey: key, status: "answered" });
    }
    const restarted = createGatewayMemory(
      { home, paths: gatewayPaths(home), memoryScope: "user", sessionScope: { groupSessions: "per_user", threadSessions: "shared" } },
      { logger: silentLogger, toolsEnabled: true },
    );
    try {
      expect(await run("forget", message("bob", { id: "bob", type: "dm" }), "confirm", restarted)).toContain("Done");
      expect(await forgotten(providers)).toEqual(["forget user:telegram:bob", "forget user:telegram:bob@chat:telegram:-100"]);
      await rm(path.join(providers, "forgets.log"));
      expect(await run("forget", message("alice", { id: "alice", type: "dm" }), "confirm", restarted)).toContain("Done");
      expect(await forgotten(providers)).toEqual(["forget user:telegram:alice", "forget user:telegram:alice@chat:telegram:-100"]);
    } finally {
      await restarted.shutdown();
    }
  });
});

async function forgotten(providers: string): Promise<string[]> {
  return (await readFile(path.join(providers, "forgets.log"), "utf8")).trim().split("\n").sort();
}
