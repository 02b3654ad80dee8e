import { createHash } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { DAY_MS } from "./retention.js";
import { checkSharedPath } from "./shared-files.js";
import { STORE_DIALECTS, dmSession, storeFixtures } from "./test-fixtures.js";

const bytes = (text: string): Buffer => Buffer.from(text, "utf8");
const sha = (text: string): string => createHash("sha256").update(text).digest("hex");

describe.each(STORE_DIALECTS)("%s", (dialect) => {
  const fixtures = storeFixtures(dialect);
  afterEach(() => fixtures.cleanup());

  describe("shared files", () => {
    it("stores bytes as given (NUL and non-UTF-8 too), with their hash and size, and replaces them on a second put", async () => {
      const { store } = await fixtures.openNew();
      const binary = Buffer.from([0, 255, 1, 0, 128]);
      const first = await store.sharedFiles.put("workspace/attachments/telegram/a.bin", binary, { sessionKey: "agent:main:telegram:dm:1" });
      expect(first).toMatchObject({ ok: true, sha256: createHash("sha256").update(binary).digest("hex") });
      const stored = await store.sharedFiles.get("workspace/attachments/telegram/a.bin");
      expect(stored?.content.equals(binary)).toBe(true);
      expect(stored).toMatchObject({ size: 5, deleted: false, sessionKey: "agent:main:telegram:dm:1", updatedAt: fixtures.now() });

      const second = await store.sharedFiles.put("workspace/attachments/telegram/a.bin", bytes("new"));
      expect(second.ok && first.ok && second.version > first.version).toBe(true);
      const replaced = await store.sharedFiles.get("workspace/attachments/telegram/a.bin");
      expect(replaced?.content.toString()).toBe("new");
      expect(replaced).toMatchObject({ sha256: sha("new"), size: 3 });
      expect(replaced?.sessionKey).toBeUndefined();
    });

    it("answers what changed since a version under the asked prefixes, tombstones included, oldest first", async () => {
      const { store } = await fixtures.openNew();
      await store.sharedFiles.put("skills/alpha/SKILL.md", bytes("alpha"));
      const seen = await store.sharedFiles.changedSince(0, ["skills/", "hooks/state.json"]);
      expect(seen.map((row) => [row.path, row.content.toString()])).toEqual([["skills/alpha/SKILL.md", "alpha"]]);
      const cursor = seen.at(-1)?.version ?? 0;

      await store.sharedFiles.put("hooks/state.json", bytes("{}"));
      await store.sharedFiles.put("workspace/attachments/telegram/x.jpg", bytes("jpeg"), { sessionKey: "k" });
      await store.sharedFiles.put("skillsets/not-a-skill", bytes("no"));
      expect(await store.sharedFiles.remove("skills/alpha/SKILL.md")).toBe(true);
      expect(await store.sharedFiles.remove("skills/alpha/SKILL.md")).toBe(false);
      expect(await store.sharedFiles.remove("skills/never/SKILL.md")).toBe(false);

      const changed = await store.sharedFiles.changedSince(cursor, ["skills/", "hooks/state.json"]);
      expect(changed.map((row) => [row.path, row.deleted])).toEqual([
        ["hooks/state.json", false],
        ["skills/alpha/SKILL.md", true],
      ]);
      expect(changed[1]?.content.byteLength).toBe(0);
      expect(await store.sharedFiles.get("skills/alpha/SKILL.md")).toBeUndefined();
      expect(await store.sharedFiles.changedSince(changed.at(-1)?.version ?? 0, ["skills/", "hooks/state.json"])).toEqual([]);
      expect(await store.sharedFiles.changedSince(0, [])).toEqual([]);
    });

    it("gives versions that keep growing across processes sharing the database", async () => {
      const { store, file } = await fixtures.openNew();
      const other = await fixtures.open(file);
      const versions: number[] = [];
      for (const [index, writer] of [store, other, store, other].entries()) {
        const put = await writer.sharedFiles.put(`skills/s${index}/SKILL.md`, bytes(String(index)));
        if (put.ok) versions.push(put.version);
      }
      expect(versions).toHaveLength(4);
      expect([...versions].sort((a, b) => a - b)).toEqual(versions);
      expect(new Set(versions).size).toBe(4);
      const concurrent = await Promise.all(Array.from({ length: 8 }, (_, index) => (index % 2 === 0 ? store : other).sharedFiles.put(`skills/c${index}/SKILL.md`, bytes("c"))));
      expect(new Set(concurrent.map((put) => (put.ok ? put.version : 0))).size).toBe(8);
      expect((await other.sharedFiles.changedSince(versions.at(-1) ?? 0, ["skills/"])).length).toBe(8);
    });

    it("says the latest version of any row, a session file's and a tombstone's too (0 when there is none)", async () => {
      const { store } = await fixtures.openNew();
      expect(await store.sharedFiles.latestVersion()).toBe(0);
      await store.sharedFiles.put("skills/alpha/SKILL.md", bytes("alpha"));
      const attachment = await store.sharedFiles.put("workspace/attachments/telegram/x.jpg", bytes("jpeg"), { sessionKey: "k" });
      expect(attachment.ok && (await store.sharedFiles.latestVersion()) === attachment.version).toBe(true);
      await store.sharedFiles.remove("skills/alpha/SKILL.md");
      const [tombstone] = await store.sharedFiles.changedSince(attachment.ok ? attachment.version : 0, ["skills/"]);
      expect(await store.sharedFiles.latestVersion()).toBe(tombstone?.version);
    });

    it("lists a session's live files and a folder's, without their bytes", async () => {
      const { store } = await fixtures.openNew();
      await store.sharedFiles.put("workspace/attachments/telegram/1.jpg", bytes("one"), { sessionKey: "s1" });
      await store.sharedFiles.put("sessions/abc/tool-results/call-1.txt", bytes("long output"), { sessionKey: "s1" });
      await store.sharedFiles.put("workspace/attachments/telegram/2.jpg", bytes("two"), { sessionKey: "s2" });
      await store.sharedFiles.put("skills/beta/SKILL.md", bytes("beta"));
      await store.sharedFiles.put("skills/beta/references/notes.md", bytes("notes"));
      await store.sharedFiles.put("skills/betamax/SKILL.md", bytes("other"));
      await store.sharedFiles.remove("workspace/attachments/telegram/2.jpg");

      expect((await store.sharedFiles.listForSession("s1")).map((entry) => [entry.path, entry.size])).toEqual([
        ["sessions/abc/tool-results/call-1.txt", 11],
        ["workspace/attachments/telegram/1.jpg", 3],
      ]);
      expect(await store.sharedFiles.listForSession("s2")).toEqual([]);
      expect((await store.sharedFiles.listUnder("skills/beta/")).map((entry) => entry.path)).toEqual(["skills/beta/SKILL.md", "skills/beta/references/notes.md"]);
      expect((await store.sharedFiles.listForSession("s1"))[0]).not.toHaveProperty("content");
    });

    it("matches a prefix by characters, not UTF-16 units, as the database's substr counts them", async () => {
      const { store } = await fixtures.openNew();
      await store.sharedFiles.put("workspace/attachments/🍞/recipe.txt", bytes("flour"));
      await store.sharedFiles.put("workspace/attachments/🍞x/other.txt", bytes("other"));

      expect((await store.sharedFiles.listUnder("workspace/attachments/🍞/")).map((entry) => entry.path)).toEqual(["workspace/attachments/🍞/recipe.txt"]);
      expect((await store.sharedFiles.changedSince(0, ["workspace/attachments/🍞/"])).map((entry) => entry.path)).toEqual(["workspace/attachments/🍞/recipe.txt"]);
    });

    it("refuses a file over the size cap and a path that could leave HERMES_HOME, storing nothing", async () => {
      const { store } = await fixtures.openNew();
      expect(await store.sharedFiles.put("workspace/attachments/telegram/big.bin", Buffer.alloc(11), { maxBytes: 10 })).toEqual({
        ok: false,
        reason: "too_large",
        size: 11,
        maxBytes: 10,
      });
      for (const bad of ["", "/etc/passwd", "skills/../../x", "skills//x", "skills\\x", "./skills/x"]) {
        expect(await store.sharedFiles.put(bad, bytes("x")), bad).toMatchObject({ ok: false, reason: "invalid_path" });
      }
      expect(await store.sharedFiles.changedSince(0, ["skills/", "workspace/", "/"])).toEqual([]);
      expect(checkSharedPath("skills/alpha/SKILL.md")).toBeUndefined();
    });

    it("are pruned by retention once no session of their key is left and they are past the window", async () => {
      const { store } = await fixtures.openNew();
      const kept = dmSession("kept");
      await store.sessions.getOrCreateActive(kept);
      await store.sharedFiles.put("workspace/attachments/telegram/kept.jpg", bytes("k"), { sessionKey: kept.key });
      await store.sharedFiles.put("workspace/attachments/telegram/stranger.jpg", bytes("s"), { sessionKey: "agent:main:telegram:dm:stranger" });
      await store.sharedFiles.put("skills/gamma/SKILL.md", bytes("g"));
      fixtures.advance(2 * DAY_MS);
      await store.sharedFiles.put("workspace/attachments/telegram/arriving.jpg", bytes("a"), { sessionKey: "agent:main:telegram:dm:new" });

      const counts = await store.retention.prune({ now: fixtures.now(), days: 1 });
      expect(counts.sessionFiles).toBe(1);
      expect(await store.sharedFiles.get("workspace/attachments/telegram/stranger.jpg")).toBeUndefined();
      for (const path of ["workspace/attachments/telegram/kept.jpg", "workspace/attachments/telegram/arriving.jpg", "skills/gamma/SKILL.md"]) {
        expect(await store.sharedFiles.get(path), path).toBeDefined();
      }
      expect((await store.retention.prune({ now: fixtures.now(), days: 1 })).sessionFiles).toBeUndefined();
    });

    it("go with a session history retention deleted, while a newer session of the same key keeps its own", async () => {
      const { store } = await fixtures.openNew();
      const chat = dmSession("regular");
      await store.sessions.getOrCreateActive(chat);
      await store.sharedFiles.put("workspace/attachments/telegram/old.jpg", bytes("o"), { sessionKey: chat.key });
      fixtures.advance(10 * DAY_MS);
      // /new ends the old session; days later the chat's next message starts a new one, with a file of its own.
      await store.sessions.end(chat.key);
      fixtures.advance(5 * DAY_MS);
      await store.sessions.getOrCreateActive(chat);
      await store.sharedFiles.put("workspace/attachments/telegram/new.jpg", bytes("n"), { sessionKey: chat.key });
      fixtures.advance(5 * DAY_MS);

      // History retention keeps conversations updated within 7 days: the old session goes, and so does its file.
      const counts = await store.retention.prune({ now: fixtures.now(), days: 2, historyDays: 7 });
      expect(counts).toMatchObject({ sessions: 1, sessionFiles: 1 });
      expect(await store.sharedFiles.get("workspace/attachments/telegram/old.jpg")).toBeUndefined();
      expect(await store.sharedFiles.get("workspace/attachments/telegram/new.jpg")).toBeDefined();
    });
  });
});
