import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { AssistantMessage, Message, ToolResultMessage, UserMessage } from "@mariozechner/pi-ai";
import { openStore, type OpenStoreOptions } from "./open-store.js";
import type { Store } from "./store.js";
import type { NewSession } from "./types.js";

/** Temp folders and stores of one test file; `cleanup` in afterEach closes and removes them all. */
export function storeFixtures() {
  const folders: string[] = [];
  const stores: Store[] = [];
  let clock = 1_700_000_000_000;
  let ids = 0;

  const folder = async (): Promise<string> => {
    const created = await mkdtemp(path.join(os.tmpdir(), "hermes-"));
    folders.push(created);
    return created;
  };
  const open = async (file: string, options: Partial<OpenStoreOptions> = {}): Promise<Store> => {
    const newId = (): string => `session-${String(++ids).padStart(4, "0")}`;
    const store = await openStore({ file, now: () => clock, newId, ...options });
    stores.push(store);
    return store;
  };

  return {
    /** A fresh folder under the system temp dir. */
    folder,
    open,
    /** The manual clock every store opened here uses: it stands still until `advance`. */
    now: (): number => clock,
    advance(ms: number): void {
      clock += ms;
    },
    /** A store on a new file in a folder that does not exist yet. */
    async openNew(options: Partial<OpenStoreOptions> = {}): Promise<{ store: Store; file: string }> {
      const file = path.join(await folder(), "state", "state.db");
      return { store: await open(file, options), file };
    },
    async cleanup(): Promise<void> {
      for (const store of stores.splice(0)) await store.close();
      for (const created of folders.splice(0)) await rm(created, { recursive: true, force: true });
    },
  };
}

export function dmSession(userId: string, overrides: Partial<NewSession> = {}): NewSession {
  return {
    key: `agent:main:telegram:dm:${userId}`,
    platform: "telegram",
    chatId: userId,
    chatType: "dm",
    userId,
    ...overrides,
  };
}

export function userMessage(text: string, timestamp = 1): UserMessage {
  return { role: "user", content: text, timestamp };
}

export function assistantMessage(text: string, outputTokens = 0): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "text", text }],
    api: "openai-completions",
    provider: "openai",
    model: "test-model",
    usage: {
      input: 0,
      output: outputTokens,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: outputTokens,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason: "stop",
    timestamp: 2,
  };
}

export function toolResultMessage(text: string): ToolResultMessage {
  return { role: "toolResult", toolCallId: "call-1", toolName: "web_fetch", content: [{ type: "text", text }], isError: false, timestamp: 3 };
}

export function conversation(...texts: string[]): Message[] {
  return texts.map((text, index) => (index % 2 === 0 ? userMessage(text) : assistantMessage(text)));
}
