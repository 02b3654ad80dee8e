import { access } from "node:fs/promises";
import path from "node:path";
import { createJsonLogger, silentLogger } from "@hermes/agent";
import { afterEach, describe, expect, it } from "vitest";
import { STORE_DIALECTS, storeFixtures } from "../../../store/src/test-fixtures.js";
import { gatewayPaths } from "../config/load-config.js";
import type { InboundMessage } from "../core/inbound.js";
import { createGatewayMemory, logMemoryScope, memoryStorageOf } from "./memory-scopes.js";

function dm(userId: string): InboundMessage {
  return { platform: "telegram", chat: { id: userId, type: "dm" }, user: { id: userId }, messageId: "m1", text: "hi", attachments: [], mentionedBot: false, timestamp: 0 };
}

describe.each(STORE_DIALECTS)("%s", (dialect) => {
  const fixtures = storeFixtures(dialect);
  afterEach(() => fixtures.cleanup());

  async function databaseMemory() {
    const { store } = await fixtures.openNew();
    const home = await fixtures.folder();
    const config = {
      home,
      paths: gatewayPaths(home),
      memoryScope: "user" as const,
      sessionScope: { groupSessions: "per_user" as const, threadSessions: "shared" as const },
      databaseUrl: "postgres://hermes@127.0.0.1/hermes",
    };
    const memory = createGatewayMemory(config, { logger: silentLogger, toolsEnabled: true, storage: memoryStorageOf(config, store) });
    return { store, home, config, memory };
  }

  describe("gateway memory with HERMES_DATABASE_URL", () => {
    it("keeps what a manager writes (the tool's and reflection's path) in the database, not in the home", async () => {
      const { store, home, memory } = await databaseMemory();
      try {
        const ada = await memory.forMessage(dm("7"), "s1");
        expect(await ada.manager.add("user", "Prefers tea")).toMatchObject({ ok: true, changed: true });
        expect(await ada.manager.replace("user", "tea", "Prefers green tea")).toMatchObject({ ok: true, changed: true });
        expect(await store.memoryDocuments.read("users/telegram/7/USER.md")).toMatchObject({ text: "§ Prefers green tea\n" });
        await expect(access(path.join(home, "memory", "users", "telegram", "7", "USER.md"))).rejects.toThrow();
        expect((await memory.read(memory.scopeOf(dm("7")))).user?.entries).toEqual(["Prefers green tea"]);
        expect((await memory.read(memory.scopeOf(dm("8")))).user?.entries).toEqual([]);
      } finally {
        await memory.shutdown();
      }
    });

    it("forget erases the person's rows only, and their next snapshot is empty", async () => {
      const { store, memory } = await databaseMemory();
      try {
        await (await memory.forMessage(dm("7"), "s1")).manager.add("memory", "Works on Nightingale");
        await (await memory.forMessage(dm("8"), "s2")).manager.add("memory", "Bob's fact");
        await memory.forget(memory.scopeOf(dm("7")));
        expect(await store.memoryDocuments.list("users/")).toEqual(["users/telegram/8/MEMORY.md"]);
        const next = await memory.forMessage(dm("7"), "s3");
        expect(next.manager.buildMemoryContextBlock()).toBe("");
      } finally {
        await memory.shutdown();
      }
    });

    it("says at start-up that memory is in the database", async () => {
      const { config } = await databaseMemory();
      const records: string[] = [];
      await logMemoryScope(config, createJsonLogger({ write: (line) => void records.push(line) }));
      expect(records.join()).toContain("kept in the database (memory_documents)");
    });
  });
});
