import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { MemoryStore } from "@hermes/agent";
import type { Message } from "@mariozechner/pi-ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { InboundMessage } from "./inbound.js";
import { peopleOf, runPersonalData, senderOf } from "./run-personal-data.js";

const message = (overrides: Partial<InboundMessage> = {}): InboundMessage => ({
  platform: "telegram",
  chat: { id: "-5", type: "group" },
  user: { id: "7", name: "Ada Lovelace" },
  messageId: "m1",
  text: "hi",
  attachments: [],
  mentionedBot: true,
  timestamp: 0,
  ...overrides,
});

const user = (content: Extract<Message, { role: "user" }>["content"]): Message => ({ role: "user", content, timestamp: 0 });

describe("run personal data", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "hermes-personal-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("names the sender with their ids, and no name when the platform gave none", () => {
    expect(senderOf(message())).toEqual({ names: ["Ada Lovelace"], ids: ["7", "-5"] });
    expect(senderOf(message({ user: { id: "7" }, chat: { id: "7", type: "dm" } }))).toEqual({ names: [], ids: ["7"] });
  });

  it("adds everyone a shared transcript names in its sender prefixes, once each", () => {
    const history = [
      user("[Bob Marley] who is around?"),
      user([{ type: "text", text: "[Grace Hopper] me" }]),
      user("[Bob Marley] great"),
      user("[not a prefix]without the space"),
      { role: "assistant", content: [{ type: "text", text: "[Eve] hello" }], api: "openai-completions", provider: "x", model: "m", usage: emptyUsage(), stopReason: "stop", timestamp: 0 } as Message,
    ];
    expect(peopleOf(message(), history).names).toEqual(["Ada Lovelace", "Bob Marley", "Grace Hopper"]);
  });

  it("reads the scope's entries when asked, leaving out the reviewer's general lessons", async () => {
    const memory = new MemoryStore({ dir });
    const read = runPersonalData(senderOf(message()), memory);
    expect((await read()).memoryEntries).toEqual([]);
    await memory.add("user", "Is training for the Berlin marathon");
    await memory.add("memory", "The group meets on Thursdays at the library");
    await memory.add("memory", "[learning] 2026-11-30 research: next time: cite sources");
    expect(await read()).toEqual({
      names: ["Ada Lovelace"],
      ids: ["7", "-5"],
      memoryEntries: ["The group meets on Thursdays at the library", "Is training for the Berlin marathon"],
    });
  });
});

function emptyUsage() {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
}
