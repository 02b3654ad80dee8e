import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RecordedRequest, ScriptedReply } from "./fakes/llm-server.js";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.js";

const DM_KEY = "agent:main:telegram:dm:100";
let h: GatewayHarness;

afterEach(async () => {
  await h?.close();
});

async function eventually<T>(read: () => Promise<T | undefined>, timeoutMs = 8_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("agent subsystems through the gateway", () => {
  it("stores a memory written by the memory tool in the person's own USER.md and shows it in later prompts", async () => {
    h = await startGatewayHarness({ HERMES_ALLOWED_USERS: "telegram:7", HERMES_REFLECTION: "off" });
    h.llm.enqueue(
      { kind: "tools", calls: [{ name: "memory", arguments: { action: "add", target: "user", content: "Prefers answers in French." } }] },
      { kind: "text", text: "Noted." },
    );
    await h.adapter.userSays("Please always answer in French.");
    await h.gateway.waitIdle(DM_KEY);
    const userFile = await readFile(path.join(h.home, "memory", "users", "telegram", "7", "USER.md"), "utf8");
    expect(userFile).toMatch(/^§ Prefers answers in French\./m);

    // Within the conversation the prompt prefix stays byte-identical, although memory changed.
    h.llm.enqueue({ kind: "text", text: "D'accord." });
    await h.adapter.userSays("Thanks");
    await h.gateway.waitIdle(DM_KEY);
    const systemOf = (i: number): string => JSON.stringify(h.llm.requests[i]?.messages[0]);
    expect(systemOf(2)).toBe(systemOf(0));
    expect(systemOf(2)).not.toContain("Prefers answers in French.");

    await h.adapter.userSays("/new");
    h.llm.enqueue({ kind: "text", text: "Bonjour !" });
    await h.adapter.userSays("Hello");
    await h.gateway.waitIdle(DM_KEY);
    const system = JSON.stringify(h.llm.requests.at(-1)?.messages[0]);
    expect(system).toContain("<memory-context>");
    expect(system).toContain("Prefers answers in French.");
  });

  it("offers skills and session_search by default and finds an earlier conversation", async () => {
    h = await startGatewayHarness({ HERMES_ALLOWED_USERS: "telegram:7", HERMES_REFLECTION: "off" });
    h.llm.enqueue({ kind: "text", text: "The launch codename is Bluebird." });
    await h.adapter.userSays("Our launch codename is Bluebird, remember?");
    await h.gateway.waitIdle(DM_KEY);
    await h.adapter.userSays("/new");
    h.llm.enqueue(
      { kind: "tools", calls: [{ name: "session_search", arguments: { query: "launch codename" } }] },
      { kind: "text", text: "It was Bluebird." },
    );
    await h.adapter.userSays("What was the launch codename?");
    await h.gateway.waitIdle(DM_KEY);
    const tools = (h.llm.requests.at(-1)?.tools as Array<{ function: { name: string } }>).map((t) => t.function.name);
    expect(tools).toEqual(expect.arrayContaining(["memory", "skills_list", "skill_view", "skill_manage", "session_search"]));
    expect(JSON.stringify(h.llm.requests.at(-1)?.messages)).toContain("Bluebird");
    expect(h.adapter.texts().at(-1)).toBe("It was Bluebird.");
  });

  it("runs a background review after the reply, records the learning in the person's MEMORY.md and curates it", async () => {
    h = await startGatewayHarness({ HERMES_ALLOWED_USERS: "telegram:7", HERMES_REFLECTION_INTERVAL: "1" });
    const memoryFile = path.join(h.home, "memory", "users", "telegram", "7", "MEMORY.md");
    // Two notes from earlier conversations that say the same thing: what the memory review is there to tidy.
    await mkdir(path.dirname(memoryFile), { recursive: true });
    await writeFile(memoryFile, "§ Reads studies on sleep for a newsletter\n§ Writes a newsletter about sleep research\n");
    const audit = {
      dimensions: [
        { id: "sources-cited", status: "covered", evidence: "links given" },
        { id: "recency-checked", status: "missing", evidence: "no dates" },
      ],
      learnings: ["State the publication date of every source you cite."],
    };
    let curationPrompt = "";
    const curate = (request: RecordedRequest): ScriptedReply => {
      curationPrompt = JSON.stringify(request.messages);
      const numberOf = (entry: string): number => Number(new RegExp(`(\\d+)\\. ${entry}`).exec(curationPrompt)?.[1]);
      const merge = [{ entries: [numberOf("Reads studies on sleep"), numberOf("Writes a newsletter")], text: "Writes a sleep-research newsletter" }];
      return { kind: "text", text: JSON.stringify({ merge, drop: [] }) };
    };
    h.llm.enqueue({ kind: "text", text: "Here is what recent studies say, with sources." }, { kind: "text", text: JSON.stringify(audit) }, curate);
    await h.adapter.userSays("Please research the latest studies on sleep and cite your sources.");
    await h.gateway.waitIdle(DM_KEY);
    expect(h.adapter.texts()).toEqual(["Here is what recent studies say, with sources."]);
    const memory = await eventually(async () => {
      const text = await readFile(memoryFile, "utf8");
      // A merge is two writes (the first entry replaced, then the others removed): wait for the second as well.
      const curated = text.includes("sleep-research newsletter") && !text.includes("Writes a newsletter about sleep research");
      return text.includes("[learning]") && curated ? text : undefined;
    });
    // The curation call saw the learning just recorded next to the older notes, and merged only the duplicates.
    expect(curationPrompt).toContain("Memory entries:");
    expect(curationPrompt).toMatch(/\d\. \[learning\] .*publication date/);
    expect(memory).toContain("publication date");
    expect(memory).toContain("§ Writes a sleep-research newsletter");
    expect(memory).not.toContain("Reads studies on sleep");
    expect(memory).not.toContain("Writes a newsletter about sleep research");
    // The reply, the audit and the curation: nothing else was asked of the model.
    expect(h.llm.requests).toHaveLength(3);
  });

  it("/compress summarises the conversation in the background and continues in a child session", async () => {
    // A small window, so five long answers leave a middle to summarise outside the protected recent tail.
    h = await startGatewayHarness({ HERMES_ALLOWED_USERS: "telegram:7", HERMES_REFLECTION: "off", HERMES_CONTEXT_WINDOW: "6000", HERMES_COMPRESSION_AT: "95" });
    const long = "x".repeat(2_000);
    h.llm.enqueue(
      { kind: "text", text: `Answer one ${long}` },
      { kind: "text", text: `Answer two ${long}` },
      { kind: "text", text: `Answer three ${long}` },
      { kind: "text", text: `Answer four ${long}` },
      { kind: "text", text: `Answer five ${long}` },
      { kind: "text", text: "## Goal\nPlan the Lisbon trip.\n## Progress\nThree questions answered." },
      { kind: "text", text: "Continuing." },
    );
    for (const q of ["Plan my Lisbon trip", "What about hotels?", "And restaurants?", "Museums?", "Day trips?"]) {
      await h.adapter.userSays(q);
      await h.gateway.waitIdle(DM_KEY);
    }
    const before = await h.gateway.store.sessions.active(DM_KEY);
    await h.adapter.userSays("/compress");
    const done = await eventually(async () => h.adapter.texts().find((t) => t.startsWith("Done:")));
    expect(done).toMatch(/Done: I summarised the earlier messages/);
    expect(h.adapter.texts()).toContain("Compressing the conversation…");
    const after = await h.gateway.store.sessions.active(DM_KEY);
    expect(after?.parentId).toBe(before?.id);
    await h.adapter.userSays("Next step?");
    await h.gateway.waitIdle(DM_KEY);
    expect(JSON.stringify(h.llm.requests.at(-1)?.messages)).toContain("Plan the Lisbon trip.");
  });
});
