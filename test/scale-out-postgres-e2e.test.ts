import { readdir } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LlmServer, RecordedRequest, ScriptedReply } from "./fakes/llm-server.js";
import type { FakeTelegram } from "./fakes/telegram/index.js";
import { httpUrl } from "./support/app-process.js";
import { startSharedMachines, type SharedMachines } from "./support/shared-machines.js";
import { waitUntil } from "./support/wait-until.js";

// "Three machines": a gateway and two workers, each with an empty HERMES_HOME of its own, sharing only Redis and
// PostgreSQL (HERMES_DATABASE_URL), as docker-compose.yml runs them.

const TOKEN = "123456:SCALE-OUT-e2e";
const MARK = /\bm(\d+)x\b/;
let machines: SharedMachines;
let llm: LlmServer;
let telegram: FakeTelegram;
let root: string;

/** The scripted model answers each message with its mark, so every reply can be matched to its message. */
function answerFor(request: RecordedRequest): ScriptedReply {
  const mark = MARK.exec(JSON.stringify(request.messages.at(-1) ?? ""))?.[1];
  return { kind: "text", text: mark === undefined ? "answer without a mark" : `answer m${mark}x`, chunks: 1 };
}

beforeEach(async () => {
  machines = await startSharedMachines({ token: TOKEN, reply: answerFor });
  ({ llm, telegram, root } = machines);
});
afterEach(() => machines.close());

const start: SharedMachines["start"] = (role, name, ready) => machines.start(role, name, ready);
const stop: SharedMachines["stop"] = (app) => machines.stop(app);

/** Replies that carry message `n`'s mark. */
function repliesTo(n: number): number {
  return telegram.sent.filter((sent) => MARK.exec(sent.visible)?.[1] === String(n)).length;
}

function say(userId: number, n: number): void {
  telegram.userWrites({ from: { id: userId, first_name: `User${userId}` }, text: `Please look at item m${n}x.` });
}

describe("a gateway and two workers on three HERMES_HOMEs, sharing Redis and PostgreSQL", () => {
  it("answers a 200-message burst exactly once, and keeps every conversation across a restart of all processes", async () => {
    const workers = [await start("worker", "worker-a", "worker started"), await start("worker", "worker-b", "worker started")];
    let gateway = await start("gateway", "gateway", '"msg":"gateway started"');
    // Readiness includes the database: writable, on the gateway and on a worker.
    await waitUntil(async () => (await fetch(`${httpUrl(gateway)}/readyz`)).status === 200, "the gateway to be ready");
    const ready = (await (await fetch(`${httpUrl(gateway)}/readyz`)).json()) as { checks: Record<string, { ok: boolean; detail: string }> };
    expect(ready.checks.store).toEqual({ ok: true, detail: "writable" });

    const BURST = 200;
    const USERS = 50;
    for (let n = 0; n < BURST; n += 1) say(1_000 + (n % USERS), n);
    await waitUntil(() => Array.from({ length: BURST }, (_, n) => repliesTo(n)).every((count) => count >= 1), "every message of the burst to be answered", 120_000);
    // Settled (nothing pending in the outbox), so a second copy of any reply would have gone out by now.
    await waitUntil(() => llm.requests.length === BURST, "no further model calls");
    expect(Array.from({ length: BURST }, (_, n) => repliesTo(n)).filter((count) => count !== 1)).toEqual([]);
    // Besides the answers only the acknowledgement a person gets when they write while their previous message is
    // still being answered: no error and no notice of anything gone wrong.
    const others = telegram.sent.filter((sent) => MARK.exec(sent.visible) === null).map((sent) => sent.visible);
    expect(others.filter((text) => !text.startsWith("Got it. I'm still answering your previous message"))).toEqual([]);
    // Both workers took runs: neither machine needed the other's files.
    for (const worker of workers) expect(worker.stderr()).not.toContain("cannot open");

    for (const app of [gateway, ...workers]) await stop(app);
    // The workers' own homes hold no state database: everything went to PostgreSQL.
    for (const name of ["worker-a", "worker-b", "gateway"]) {
      expect(await readdir(path.join(root, name, "hermes"))).not.toContain("state.db");
    }

    await start("worker", "worker-b", "worker started");
    gateway = await start("gateway", "gateway", '"msg":"gateway started"');
    say(1_000, BURST);
    await waitUntil(() => repliesTo(BURST) === 1, "the answer after the restart");
    // The conversation of user 1000 (messages 0, 50, 100, 150) reached the model with the new message.
    const last = JSON.stringify(llm.requests.at(-1)?.messages);
    for (const n of [0, 50, 100, 150]) expect(last).toContain(`m${n}x`);
  }, 240_000);

  it("puts a memory one worker saved into the next session's prompt on the other, and session_search finds the earlier session", async () => {
    const workerA = await start("worker", "worker-a", "worker started");
    await start("gateway", "gateway", '"msg":"gateway started"');
    llm.enqueue(
      { kind: "tools", calls: [{ name: "memory", arguments: { action: "add", target: "user", content: "Favourite city is Lisbon; travels with a cello." } }] },
      { kind: "text", text: "Noted the city m1x." },
    );
    say(42, 1);
    await waitUntil(() => repliesTo(1) === 1, "the first answer, on worker A");
    // Worker A stops, so the next runs can only happen on worker B, whose home has never seen this user.
    await stop(workerA);
    await start("worker", "worker-b", "worker started");

    telegram.userWrites({ from: { id: 42, first_name: "User42" }, text: "/new" });
    await waitUntil(() => telegram.sentTo(42).length >= 2, "the /new confirmation");
    llm.enqueue(
      { kind: "tools", calls: [{ name: "session_search", arguments: { query: "city" } }] },
      { kind: "text", text: "Found it m2x." },
    );
    say(42, 2);
    await waitUntil(() => repliesTo(2) === 1, "the answer on worker B");
    const [asked, afterSearch] = llm.requests.slice(-2);
    // The memory is in the new session's system prompt (USER.md of this person's scope).
    expect(JSON.stringify(asked?.messages)).toContain("Favourite city is Lisbon; travels with a cello.");
    // session_search ran on worker B against the shared database and found the earlier session's message.
    const toolResult = JSON.stringify(afterSearch?.messages.at(-1));
    expect(toolResult).toContain("Noted the [city] m1x.");
    expect(toolResult).toContain("(Please look at item m1x.)");
  }, 180_000);

  it("hands Telegram polling to the standby gateway on another home when the active one is killed", async () => {
    await start("worker", "worker-a", "worker started");
    const active = await start("gateway", "gateway-a", "became the active gateway");
    const standby = await start("gateway", "gateway-b", '"msg":"gateway started"');
    expect(standby.stderr()).toContain("standing by: another gateway is active");

    say(7, 1);
    await waitUntil(() => repliesTo(1) === 1, "the answer of the active gateway");
    // Killed once the reply is recorded as sent: one caught mid-send is sent again by the new gateway (README).
    const activeUrl = httpUrl(active);
    await waitUntil(async () => ((await (await fetch(`${activeUrl}/healthz`)).json()) as { pendingDeliveries: number }).pendingDeliveries === 0, "the reply to be recorded as sent");
    await machines.kill(active);
    say(7, 2);
    await standby.waitFor("became the active gateway", 30_000);
    await waitUntil(() => repliesTo(2) === 1, "the answer after the takeover", 30_000);
    // The conversation went on in the same session: the first message is in the second run's history.
    expect(JSON.stringify(llm.requests.at(-1)?.messages)).toContain("m1x");
    expect(repliesTo(1)).toBe(1);
  }, 120_000);
});
