import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Message } from "@mariozechner/pi-ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../observability/logger.js";
import type { AnyToolDefinition, ToolContext } from "../tools/types.js";
import { MemoryManager } from "./memory-manager.js";
import { MemoryProvider, type MemoryProviderContext } from "./memory-provider.js";
import { memoryScopeOf, type MemoryScope } from "./memory-scope.js";
import { ScopedMemories, readMemoryScope } from "./scoped-memories.js";

let root: string;
const toolContext: ToolContext = { signal: new AbortController().signal, toolCallId: "c", sessionId: "s", logger: silentLogger };

/** An external provider that remembers which scope it was built for and what it was asked to do. */
class RecordingProvider extends MemoryProvider {
  readonly name = "recording";
  static log: string[] = [];
  private scopeId = "";
  async isAvailable(): Promise<boolean> {
    return true;
  }
  async initialize(context: MemoryProviderContext): Promise<void> {
    this.scopeId = context.scopeId;
  }
  getToolSchemas(): AnyToolDefinition[] {
    return [];
  }
  override systemPromptBlock(): string {
    return `external for ${this.scopeId}`;
  }
  override async forget(): Promise<void> {
    RecordingProvider.log.push(`forget ${this.scopeId}`);
  }
  override async shutdown(): Promise<void> {
    RecordingProvider.log.push(`shutdown ${this.scopeId}`);
  }
  override async onSessionEnd(sessionId: string): Promise<void> {
    RecordingProvider.log.push(`session end ${sessionId} ${this.scopeId}`);
  }
  override onPreCompress(messages: readonly Message[]): void {
    RecordingProvider.log.push(`pre-compress ${messages.length} ${this.scopeId}`);
  }
  override onMemoryWrite(key: string, value: string): void {
    RecordingProvider.log.push(`write ${key}=${value} ${this.scopeId}`);
  }
}

function scopes(limit?: number): ScopedMemories {
  return new ScopedMemories({
    limit,
    create: async (scope) => {
      const manager = new MemoryManager({ memoryDir: scope.memoryDir, userDir: scope.userDir, scopeId: scope.id });
      manager.addProvider(new RecordingProvider());
      await manager.initialize();
      return manager;
    },
  });
}

const userScope = (userId: string): MemoryScope => memoryScopeOf("user", root, { platform: "telegram", userId, chatId: userId, sharedSession: false, directChat: true });
const groupScope = (userId: string): MemoryScope => memoryScopeOf("user", root, { platform: "telegram", userId, chatId: "-100", sharedSession: true, directChat: false });

async function remember(manager: MemoryManager, target: "memory" | "user", content: string): Promise<void> {
  const tool = manager.tools().find((candidate) => candidate.name === "memory");
  const result = await tool?.handler({ action: "add", target, content }, toolContext);
  expect(result?.isError).toBeFalsy();
}

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), "hermes-scopes-"));
  RecordingProvider.log = [];
});

afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

describe("ScopedMemories", () => {
  it("keeps one person's entries out of another person's prompt and provider", async () => {
    const memories = scopes();
    const alice = await memories.managerFor(userScope("1"));
    const bob = await memories.managerFor(userScope("2"));
    await remember(alice, "user", "Alice's cat is called Mochi");
    await alice.refreshSnapshot();
    expect(alice.buildMemoryContextBlock()).toContain("Mochi");
    expect(alice.buildMemoryContextBlock()).toContain("external for user:telegram:1");
    expect(bob.buildMemoryContextBlock()).not.toContain("Mochi");
    expect(bob.buildMemoryContextBlock()).toContain("external for user:telegram:2");
    expect(await memories.managerFor(userScope("1"))).toBe(alice);
    await memories.shutdown();
  });

  it("freezes each scope's snapshot on its own", async () => {
    const memories = scopes();
    const alice = await memories.managerFor(userScope("1"));
    const bob = await memories.managerFor(userScope("2"));
    await remember(bob, "memory", "Bob deploys on Fridays");
    const alicePrompt = alice.buildMemoryContextBlock();
    await bob.refreshSnapshot();
    expect(bob.buildMemoryContextBlock()).toContain("Fridays");
    expect(alice.buildMemoryContextBlock()).toBe(alicePrompt);
    await memories.shutdown();
  });

  it("re-takes a scope's snapshot when it first meets a conversation, and only then", async () => {
    const memories = scopes();
    const alice = await memories.managerFor(userScope("1"), "session-a");
    const bob = await memories.managerFor(userScope("2"), "session-b");
    const bobPrompt = bob.buildMemoryContextBlock();
    await remember(alice, "user", "Alice moved to Oslo");
    expect((await memories.managerFor(userScope("1"), "session-a")).buildMemoryContextBlock()).not.toContain("Oslo");
    expect((await memories.managerFor(userScope("1"), "session-c")).buildMemoryContextBlock()).toContain("Oslo");
    expect((await memories.managerFor(userScope("2"), "session-b")).buildMemoryContextBlock()).toBe(bobPrompt);
    await memories.shutdown();
  });

  it("writes the chat's notes and the sender's own USER.md in a shared session", async () => {
    const memories = scopes();
    const inGroup = await memories.managerFor(groupScope("1"));
    await remember(inGroup, "memory", "this group plans the offsite");
    await remember(inGroup, "user", "prefers short answers");
    const other = await readMemoryScope(groupScope("2"));
    expect(other.memory?.entries).toEqual(["this group plans the offsite"]);
    expect(other.user?.entries).toEqual([]);
    expect((await readMemoryScope(userScope("1"))).user?.entries).toEqual(["prefers short answers"]);
    await memories.shutdown();
  });

  it("forget erases the person's files, asks the provider to forget the scope and clears cached snapshots", async () => {
    const memories = scopes();
    const dm = await memories.managerFor(userScope("1"));
    await remember(dm, "user", "lives in Lyon");
    await dm.refreshSnapshot();
    const inGroup = await memories.managerFor(groupScope("1"));
    await remember(inGroup, "memory", "group note stays");
    await inGroup.refreshSnapshot();
    expect(inGroup.buildMemoryContextBlock()).toContain("Lyon");

    RecordingProvider.log = [];
    await memories.forget(userScope("1"));
    expect(RecordingProvider.log.sort()).toEqual(["forget user:telegram:1", `forget ${groupScope("1").id}`]);
    expect((await readMemoryScope(userScope("1"))).user?.entries).toEqual([]);
    expect(dm.buildMemoryContextBlock()).not.toContain("Lyon");
    expect(inGroup.buildMemoryContextBlock()).not.toContain("Lyon");
    expect((await readMemoryScope(groupScope("1"))).memory?.entries).toEqual(["group note stays"]);
    await memories.shutdown();
  });

  it("forget sent from a shared chat also erases the provider's entries of the person's own scope, never another member's", async () => {
    const memories = scopes();
    await memories.managerFor(groupScope("2"));
    RecordingProvider.log = [];
    await memories.forget(groupScope("1"));
    expect(RecordingProvider.log.sort()).toEqual(["forget user:telegram:1", `forget ${groupScope("1").id}`]);
    await memories.shutdown();
  });

  it("after a restart, forget sets up the person's uncached shared-chat scopes only to forget them, never another member's", async () => {
    const memories = scopes();
    const otherChat = memoryScopeOf("user", root, { platform: "telegram", userId: "1", chatId: "-200", sharedSession: true, directChat: false });
    RecordingProvider.log = [];
    await memories.forget(userScope("1"), [groupScope("1"), otherChat, groupScope("2"), groupScope("1")]);
    expect(RecordingProvider.log.sort()).toEqual(
      [`forget ${groupScope("1").id}`, `forget ${otherChat.id}`, "forget user:telegram:1", `shutdown ${groupScope("1").id}`, `shutdown ${otherChat.id}`].sort(),
    );
    RecordingProvider.log = [];
    await memories.shutdown();
    // Only the scope /forget came from stays cached; the others were shut down right after forgetting.
    expect(RecordingProvider.log).toEqual(["shutdown user:telegram:1"]);
  });

  it("forget of a group's pair in chat mode erases nothing, not even the provider's entries for the chat", async () => {
    const memories = scopes();
    const chat = memoryScopeOf("chat", root, { platform: "telegram", userId: "1", chatId: "-100", sharedSession: false, directChat: false });
    await remember(await memories.managerFor(chat), "user", "Bob is vegetarian");
    RecordingProvider.log = [];
    await memories.forget(chat);
    expect(RecordingProvider.log).toEqual([]);
    expect((await readMemoryScope(chat)).user?.entries).toEqual(["Bob is vegetarian"]);
    await memories.shutdown();
  });

  it("a set-up that fails after its scope was evicted and set up again leaves the newer manager cached", async () => {
    let failFirst: (error: Error) => void = () => undefined;
    let calls = 0;
    const memories = new ScopedMemories({
      limit: 1,
      logger: silentLogger,
      create: async (scope) => {
        calls += 1;
        if (calls === 1) return new Promise<MemoryManager>((_resolve, reject) => (failFirst = reject));
        return new MemoryManager({ memoryDir: scope.memoryDir, userDir: scope.userDir, scopeId: scope.id });
      },
    });
    const failing = memories.managerFor(userScope("1")).catch(() => undefined);
    await memories.managerFor(userScope("2"));
    const newer = await memories.managerFor(userScope("1"));
    failFirst(new Error("provider down"));
    await failing;
    expect(await memories.managerFor(userScope("1"))).toBe(newer);
    expect(calls).toBe(3);
    await memories.shutdown();
  });

  it("shuts down the least recently used scope beyond its limit", async () => {
    const memories = scopes(2);
    const first = await memories.managerFor(userScope("1"));
    await memories.managerFor(userScope("2"));
    await memories.managerFor(userScope("1"));
    await memories.managerFor(userScope("3"));
    await new Promise((resolve) => setImmediate(resolve));
    expect(RecordingProvider.log).toEqual(["shutdown user:telegram:2"]);
    expect(await memories.managerFor(userScope("1"))).toBe(first);
    await memories.shutdown();
  });
});

describe("ScopedMemories at the end of a session", () => {
  it("tells the providers of every scope that took part, and the scope of whoever ended it, once each", async () => {
    const memories = scopes();
    await memories.managerFor(groupScope("1"), "group-session");
    await memories.managerFor(groupScope("2"), "group-session");
    await memories.managerFor(userScope("3"), "other-session");
    RecordingProvider.log = [];
    await memories.endSession("group-session", groupScope("1"));
    expect(RecordingProvider.log.sort()).toEqual([`session end group-session ${groupScope("1").id}`, `session end group-session ${groupScope("2").id}`]);

    // A process that never ran the conversation (the gateway beside BullMQ workers) still tells the one who ended it.
    RecordingProvider.log = [];
    await memories.endSession("ran-elsewhere", userScope("4"));
    expect(RecordingProvider.log).toEqual([`session end ran-elsewhere ${userScope("4").id}`]);
    await memories.shutdown();
  });

  it("finds the managers of a session's scopes, e.g. to show them what /compress summarises", async () => {
    const memories = scopes();
    const alice = await memories.managerFor(groupScope("1"), "group-session");
    await memories.managerFor(userScope("3"), "other-session");
    const found = await memories.managersOf("group-session");
    expect(found).toEqual([alice]);
    RecordingProvider.log = [];
    for (const manager of found) manager.onPreCompress([{ role: "user", content: "old", timestamp: 0 }]);
    expect(RecordingProvider.log).toEqual([`pre-compress 1 ${groupScope("1").id}`]);
    await memories.endSession("group-session");
    expect(await memories.managersOf("group-session")).toEqual([]);
    await memories.shutdown();
  });
});

describe("MemoryManager edits of its scope's files", () => {
  it("tells the external provider about an edit from outside the tool (the background review's)", async () => {
    const memories = scopes();
    const alice = await memories.managerFor(userScope("1"));
    RecordingProvider.log = [];
    await alice.add("memory", "[learning] check the changelog first");
    expect(RecordingProvider.log).toEqual([`write memory=[learning] check the changelog first ${userScope("1").id}`]);
    await memories.shutdown();
  });

  it("writes only the scope's own MEMORY.md and marks its snapshot stale", async () => {
    const memories = scopes();
    const alice = await memories.managerFor(userScope("1"));
    const bob = await memories.managerFor(userScope("2"));
    const added = await alice.add("memory", "review lesson for Alice");
    expect(added.ok && added.changed).toBe(true);
    expect(alice.hasChanged()).toBe(true);
    expect(bob.hasChanged()).toBe(false);
    const read = await alice.read("memory");
    expect(read.ok && read.state.entries).toEqual(["review lesson for Alice"]);
    expect((await readMemoryScope(userScope("2"))).memory?.entries).toEqual([]);
    const removed = await alice.remove("memory", "review lesson");
    expect(removed.ok && removed.changed).toBe(true);
    await memories.shutdown();
  });
});
