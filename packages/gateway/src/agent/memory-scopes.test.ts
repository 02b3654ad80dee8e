import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createJsonLogger, silentLogger } from "@hermes/agent";
import { gatewayPaths } from "../config/load-config.js";
import type { InboundMessage } from "../core/inbound.js";
import { createGatewayMemory, logMemoryScope } from "./memory-scopes.js";

let home: string;
beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), "hermes-memscopes-"));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

const configOf = (memoryScope: "user" | "chat" | "shared", threadSessions: "shared" | "per_user" = "shared") => ({
  home,
  paths: gatewayPaths(home),
  memoryScope,
  sessionScope: { groupSessions: "per_user" as const, threadSessions },
});

function message(fields: { userId: string; chatId: string; type: "dm" | "group"; threadId?: string }): InboundMessage {
  return {
    platform: "slack",
    chat: { id: fields.chatId, type: fields.type },
    user: { id: fields.userId },
    threadId: fields.threadId,
    messageId: "m1",
    text: "hi",
    attachments: [],
    mentionedBot: true,
    timestamp: 0,
  };
}

async function lines(memoryScope: "user" | "chat" | "shared"): Promise<string[]> {
  const records: string[] = [];
  await logMemoryScope(configOf(memoryScope), createJsonLogger({ write: (line) => void records.push(line) }));
  return records;
}

describe("gateway memory scopes", () => {
  it("maps a thread to the chat's notes and the sender's USER.md, and a per-user thread to the person alone", () => {
    const memory = createGatewayMemory(configOf("user"), { logger: silentLogger, toolsEnabled: true });
    const inThread = memory.scopeOf(message({ userId: "U1", chatId: "C1", type: "group", threadId: "171.1" }));
    expect(inThread.id).toBe("user:slack:U1@chat:slack:C1");
    const perUser = createGatewayMemory(configOf("user", "per_user"), { logger: silentLogger, toolsEnabled: true });
    expect(perUser.scopeOf(message({ userId: "U1", chatId: "C1", type: "group", threadId: "171.1" })).id).toBe("user:slack:U1");
    expect(memory.scopeOf(message({ userId: "U1", chatId: "D1", type: "dm" })).id).toBe("user:slack:U1");
  });

  it("offers the memory tool only when it is enabled", async () => {
    const on = createGatewayMemory(configOf("user"), { logger: silentLogger, toolsEnabled: true });
    const off = createGatewayMemory(configOf("user"), { logger: silentLogger, toolsEnabled: false });
    const dm = message({ userId: "U1", chatId: "D1", type: "dm" });
    expect((await on.forMessage(dm, "s1")).tools.map((tool) => tool.name)).toEqual(["memory"]);
    expect((await off.forMessage(dm, "s1")).tools).toEqual([]);
    await Promise.all([on.shutdown(), off.shutdown()]);
  });

  it("says at start-up whether the old global files are read", async () => {
    expect((await lines("user")).join()).toContain("each person has their own MEMORY.md and USER.md");
    await mkdir(path.join(home, "memory"), { recursive: true });
    await writeFile(path.join(home, "memory", "USER.md"), "§ old global entry\n");
    expect((await lines("user")).join()).toContain("the global memory files are left alone and not read");
    expect((await lines("shared")).join()).toContain("everyone reads and writes the same MEMORY.md and USER.md");
  });
});
