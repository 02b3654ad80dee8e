import path from "node:path";
import { MemoryStore } from "@hermes/agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { memoryStoreBehaviours, type MemoryStoreSubject } from "../../agent/src/memory/memory-store-behaviours.js";
import { STORE_DIALECTS, storeFixtures } from "./test-fixtures.js";

describe.each(STORE_DIALECTS)("%s", (dialect) => {
  const fixtures = storeFixtures(dialect);
  afterEach(() => fixtures.cleanup());

  describe("memory documents", () => {
    it("creates a document only when none exists and updates it only on the version read", async () => {
      const { store } = await fixtures.openNew();
      const documents = store.memoryDocuments;
      expect(await documents.read("users/telegram/1/MEMORY.md")).toBeUndefined();
      const created = await documents.write("users/telegram/1/MEMORY.md", "§ one\n", undefined);
      if (!created.ok) throw new Error("the first write was refused");
      const first = created.version;
      expect(await documents.write("users/telegram/1/MEMORY.md", "§ other\n", undefined)).toEqual({ ok: false, reason: "conflict" });
      expect(await documents.read("users/telegram/1/MEMORY.md")).toEqual({ text: "§ one\n", version: first });

      expect(await documents.write("users/telegram/1/MEMORY.md", "§ one\n§ two\n", first)).toEqual({ ok: true, version: first + 1 });
      // A writer that read the first version before that write must not overwrite it.
      expect(await documents.write("users/telegram/1/MEMORY.md", "§ one\n§ stale\n", first)).toEqual({ ok: false, reason: "conflict" });
      expect(await documents.write("users/telegram/2/MEMORY.md", "§ x\n", first)).toEqual({ ok: false, reason: "conflict" });
      expect(await documents.read("users/telegram/1/MEMORY.md")).toEqual({ text: "§ one\n§ two\n", version: first + 1 });
      expect(await documents.read("users/telegram/2/MEMORY.md")).toBeUndefined();
    });

    it("lists keys under a prefix exactly (case and all), in key order, and removes one key at a time", async () => {
      const { store } = await fixtures.openNew();
      const documents = store.memoryDocuments;
      for (const key of ["users/telegram/Ab/USER.md", "users/telegram/ab/MEMORY.md", "users/telegram/Ab/MEMORY.md", "chats/telegram/-1/MEMORY.md", "MEMORY.md"]) {
        await documents.write(key, "§ x\n", undefined);
      }
      expect(await documents.list("users/telegram/Ab/")).toEqual(["users/telegram/Ab/MEMORY.md", "users/telegram/Ab/USER.md"]);
      expect(await documents.list("users/")).toEqual(["users/telegram/Ab/MEMORY.md", "users/telegram/Ab/USER.md", "users/telegram/ab/MEMORY.md"]);
      expect(await documents.list("")).toHaveLength(5);
      expect(await documents.list("users/telegram/A%")).toEqual([]);
      expect(await documents.remove("users/telegram/Ab/USER.md")).toBe(true);
      expect(await documents.remove("users/telegram/Ab/USER.md")).toBe(false);
      expect(await documents.list("users/telegram/Ab/")).toEqual(["users/telegram/Ab/MEMORY.md"]);
      // After a removal the key starts again from nothing.
      expect(await documents.write("users/telegram/Ab/USER.md", "§ again\n", undefined)).toMatchObject({ ok: true });
    });

    it("never lets a writer that read a removed document write over the one created after it (/forget)", async () => {
      const { store } = await fixtures.openNew();
      const documents = store.memoryDocuments;
      const key = "users/telegram/7/USER.md";
      await documents.write(key, "§ secret\n", undefined);
      const stale = await documents.read(key);
      expect(await documents.remove(key)).toBe(true);
      const again = await documents.write(key, "§ fresh\n", undefined);
      expect(again).toMatchObject({ ok: true });
      // Versions of a new row start afresh at random, so the stale writer's version is not the new row's.
      expect(await documents.write(key, "§ secret\n§ more\n", stale?.version)).toEqual({ ok: false, reason: "conflict" });
      expect((await documents.read(key))?.text).toBe("§ fresh\n");
    });

    it("stores text without the NUL characters PostgreSQL refuses, keeping the rest", async () => {
      const { store } = await fixtures.openNew();
      expect(await store.memoryDocuments.write("MEMORY.md", "§ a\u0000b ✓\n", undefined)).toMatchObject({ ok: true });
      expect((await store.memoryDocuments.read("MEMORY.md"))?.text).toBe("§ ab ✓\n");
    });

    it("loses no entry when two stores on one database add to one MEMORY.md at the same time", async () => {
      const { store, file } = await fixtures.openNew();
      const other = await fixtures.open(file);
      const root = path.join(await fixtures.folder(), "memory");
      const dir = path.join(root, "users", "telegram", "42");
      const writers = [store, other].map((each) => new MemoryStore({ dir, storage: { root, documents: each.memoryDocuments } }));
      const results = await Promise.all(
        writers.map(async (writer, w) => {
          const own = [];
          for (let i = 0; i < 15; i++) own.push(await writer.add("memory", `writer ${w} fact ${i}`));
          return own;
        }),
      );
      expect(results.flat().every((result) => result.ok && result.changed)).toBe(true);
      const read = await writers[0]?.read("memory");
      const entries = read?.ok ? read.state.entries : [];
      expect(entries).toHaveLength(30);
      for (const w of [0, 1]) expect(entries.filter((entry) => entry.startsWith(`writer ${w} `))).toEqual(Array.from({ length: 15 }, (_, i) => `writer ${w} fact ${i}`));
    });
  });

  describe("MemoryStore on the database's memory documents", () => {
    let subject: MemoryStoreSubject;
    beforeEach(async () => {
      const { store } = await fixtures.openNew();
      const root = path.join(await fixtures.folder(), "memory");
      const dir = path.join(root, "users", "telegram", "42");
      const keyOf = (name: string): string => `users/telegram/42/${name}`;
      subject = {
        store: (options = {}) => new MemoryStore({ dir, storage: { root, documents: store.memoryDocuments }, ...options }),
        stored: async (name) => (await store.memoryDocuments.read(keyOf(name)))?.text,
        handWrite: async (name, text) => {
          const current = await store.memoryDocuments.read(keyOf(name));
          expect(await store.memoryDocuments.write(keyOf(name), text, current?.version)).toMatchObject({ ok: true });
        },
      };
    });
    memoryStoreBehaviours(() => subject);
  });
});
