import { beforeEach, describe, expect, it } from "vitest";
import type { MemoryDocument, MemoryDocuments } from "./memory-documents.js";
import { memoryStoreBehaviours } from "./memory-store-behaviours.js";
import { MemoryStore } from "./memory-store.js";

const ROOT = "/srv/hermes/memory";
const DIR = `${ROOT}/users/telegram/42`;

/**
 * Documents kept in a Map with the database's compare-and-swap and no lock, so every concurrent edit goes through
 * the conflict path; `beforeWrite` lets another writer store something between an edit's read and its write.
 */
function casDocuments() {
  const documents = new Map<string, MemoryDocument>();
  let beforeWrite: ((key: string) => void) | undefined;
  let writes = 0;
  const port: MemoryDocuments = {
    read: async (key) => documents.get(key),
    write: async (key, text, expectedVersion) => {
      writes += 1;
      const interleaved = beforeWrite;
      beforeWrite = undefined;
      interleaved?.(key);
      const current = documents.get(key);
      if (current?.version !== expectedVersion) return { ok: false, reason: "conflict" };
      const version = (current?.version ?? 0) + 1;
      documents.set(key, { text, version });
      return { ok: true, version };
    },
    remove: async (key) => documents.delete(key),
    list: async (prefix) => [...documents.keys()].filter((key) => key.startsWith(prefix)).sort(),
  };
  return {
    port,
    documents,
    writes: () => writes,
    /** Another writer stores `text` right before the next write lands. */
    interleave(text: string): void {
      beforeWrite = (key) => documents.set(key, { text, version: (documents.get(key)?.version ?? 0) + 1 });
    },
  };
}

let cas: ReturnType<typeof casDocuments>;
beforeEach(() => {
  cas = casDocuments();
});

describe("MemoryStore on a compare-and-swap port without a lock", () => {
  memoryStoreBehaviours(() => ({
    store: (options = {}) => new MemoryStore({ dir: DIR, storage: { root: ROOT, documents: cas.port }, ...options }),
    stored: async (name) => cas.documents.get(`users/telegram/42/${name}`)?.text,
    handWrite: async (name, text) => {
      const key = `users/telegram/42/${name}`;
      cas.documents.set(key, { text, version: (cas.documents.get(key)?.version ?? 0) + 1 });
    },
  }));

  it("applies the edit again to what another writer stored between its read and its write", async () => {
    const store = new MemoryStore({ dir: DIR, storage: { root: ROOT, documents: cas.port } });
    await store.add("memory", "first");
    cas.interleave("§ first\n§ from elsewhere\n");
    expect(await store.add("memory", "mine")).toMatchObject({ ok: true, changed: true, state: { entries: ["first", "from elsewhere", "mine"] } });
    expect(cas.documents.get("users/telegram/42/MEMORY.md")?.text).toBe("§ first\n§ from elsewhere\n§ mine\n");
  });

  it("judges duplicates and matches again after a conflict", async () => {
    const store = new MemoryStore({ dir: DIR, storage: { root: ROOT, documents: cas.port } });
    await store.add("memory", "Deploys on Fridays");
    cas.interleave("§ Deploys on Fridays\n§ Uses pnpm\n");
    const again = await store.add("memory", "uses PNPM");
    expect(again).toMatchObject({ ok: true, changed: false });
    cas.interleave("§ Uses pnpm\n");
    expect(await store.remove("memory", "Fridays")).toMatchObject({ ok: false, code: "no_match" });
    expect(cas.documents.get("users/telegram/42/MEMORY.md")?.text).toBe("§ Uses pnpm\n");
  });

  it("gives up as busy, writing nothing, when every write conflicts until the lock timeout", async () => {
    let clock = 0;
    const always: MemoryDocuments = { ...cas.port, write: async () => ({ ok: false, reason: "conflict" }) };
    const pauses: number[] = [];
    const store = new MemoryStore({
      dir: DIR,
      storage: { root: ROOT, documents: always },
      lock: { timeoutMs: 1_000, retryDelayMs: 100, now: () => clock, random: () => 0.5, sleep: async (ms) => void pauses.push(ms, (clock += ms)) },
    });
    const result = await store.add("memory", "never stored");
    expect(result).toMatchObject({ ok: false, code: "busy" });
    expect(pauses.filter((_, index) => index % 2 === 0)).toEqual(Array.from({ length: 10 }, () => 100));
    expect(cas.documents.size).toBe(0);
  });

  it("takes a busy port's answer as busy at once", async () => {
    const busy: MemoryDocuments = { ...cas.port, write: async () => ({ ok: false, reason: "busy" }) };
    const store = new MemoryStore({ dir: DIR, storage: { root: ROOT, documents: busy } });
    expect(await store.add("memory", "x")).toMatchObject({ ok: false, code: "busy" });
  });
});
