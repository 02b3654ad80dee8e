import { copyFile, mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.js";

const DM_KEY = "agent:main:telegram:dm:100";
const JOURNAL = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "packages", "agent", "src", "memory", "test-fixtures", "memory-providers", "journal-provider.mjs");
let h: GatewayHarness | undefined;
let home: string | undefined;

afterEach(async () => {
  await h?.close();
  if (home) await rm(home, { recursive: true, force: true });
  h = undefined;
  home = undefined;
});

/** A gateway whose state folder has the journal memory plugin, which logs the hooks it hears per scope. */
async function withJournal(env: Record<string, string>): Promise<GatewayHarness> {
  home = await mkdtemp(path.join(os.tmpdir(), "hermes-hooks-"));
  await mkdir(path.join(home, "memory-providers"), { recursive: true });
  await copyFile(JOURNAL, path.join(home, "memory-providers", "journal-provider.mjs"));
  return startGatewayHarness({ HERMES_ALLOWED_USERS: "telegram:7", HERMES_REFLECTION: "off", ...env }, home);
}

const journalOf = async (state: string): Promise<string[]> =>
  (await readFile(path.join(state, "memory", "users", "telegram", "7", "journal-events.log"), "utf8").catch(() => "")).split("\n").filter(Boolean);

async function eventually<T>(read: () => Promise<T | undefined>, timeoutMs = 8_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("memory provider hooks through the gateway", () => {
  it("/compress shows the person's memory provider what it summarises; /new tells it the session ended", async () => {
    // A small window, so five long answers leave a middle to summarise outside the protected recent tail.
    const harness = (h = await withJournal({ HERMES_CONTEXT_WINDOW: "6000", HERMES_COMPRESSION_AT: "95" }));
    const long = "x".repeat(2_000);
    harness.llm.enqueue(
      ...["one", "two", "three", "four", "five"].map((n) => ({ kind: "text" as const, text: `Answer ${n} ${long}` })),
      { kind: "text", text: "## Goal\nPlan the Lisbon trip.\n## Progress\nFive questions answered." },
    );
    for (const q of ["Plan my Lisbon trip", "What about hotels?", "And restaurants?", "Museums?", "Day trips?"]) {
      await harness.adapter.userSays(q);
      await harness.gateway.waitIdle(DM_KEY);
    }
    expect(await journalOf(harness.home)).toEqual([]);
    await harness.adapter.userSays("/compress");
    await eventually(async () => harness.adapter.texts().find((t) => t.startsWith("Done: I summarised")));
    const [preCompress] = await journalOf(harness.home);
    expect(preCompress).toMatch(/^pre-compress \d+$/);
    expect(Number(preCompress?.split(" ")[1])).toBeGreaterThan(0);

    const child = await harness.gateway.store.sessions.active(DM_KEY);
    await harness.adapter.userSays("/new");
    await eventually(async () => harness.adapter.texts().find((t) => t.startsWith("Started a new conversation")));
    expect(await journalOf(harness.home)).toEqual([preCompress, `session-end ${child?.id}`]);
  });

  it("tells the provider when the background review changes the person's MEMORY.md", async () => {
    const harness = (h = await withJournal({ HERMES_REFLECTION: "on", HERMES_REFLECTION_INTERVAL: "1" }));
    const audit = { dimensions: [{ id: "recency-checked", status: "missing", evidence: "no dates" }], learnings: ["State the publication date of every source you cite."] };
    harness.llm.enqueue(
      { kind: "text", text: "Here is what recent studies say, with sources." },
      { kind: "text", text: JSON.stringify(audit) },
      { kind: "text", text: JSON.stringify({ merge: [], drop: [] }) },
    );
    await harness.adapter.userSays("Please research the latest studies on sleep and cite your sources.");
    await harness.gateway.waitIdle(DM_KEY);
    const events = await eventually(async () => {
      const lines = await journalOf(harness.home);
      return lines.some((line) => line.startsWith("memory-write memory")) ? lines : undefined;
    });
    expect(events.find((line) => line.startsWith("memory-write"))).toMatch(/^memory-write memory \[learning\] .*publication date/);
  });
});
