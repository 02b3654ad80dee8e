import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RecordedRequest, ScriptedReply } from "./fakes/llm-server.js";
import { httpUrl, type AppProcess } from "./support/app-process.js";
import { setDatabaseReachable } from "./support/database-outage.js";
import { startSharedMachines, type SharedMachines } from "./support/shared-machines.js";
import { waitUntil } from "./support/wait-until.js";

// A gateway and a worker on homes of their own (HERMES_DATABASE_URL, REDIS_URL) while PostgreSQL goes away in the
// middle of a run and comes back.

const TOKEN = "123456:PG-OUTAGE-e2e";
const MARK = /\bm(\d+)x\b/;
let machines: SharedMachines;

/** Each message's answer carries its mark and takes about a second and a half, so the outage can begin mid-run. */
function answerFor(request: RecordedRequest): ScriptedReply {
  const mark = MARK.exec(JSON.stringify(request.messages.at(-1) ?? ""))?.[1];
  return { kind: "text", text: `answer m${mark ?? "?"}x`, chunks: 4, delayMsBetweenChunks: 500 };
}

beforeEach(async () => {
  machines = await startSharedMachines({ token: TOKEN, reply: answerFor });
});
afterEach(() => machines.close());

/** Ada (42) and Bob (43) in their own DMs: each message's answer can only come from its own run. */
function say(n: number, userId = 42) {
  return machines.telegram.userWrites({ from: { id: userId, first_name: userId === 42 ? "Ada" : "Bob" }, text: `Please look at item m${n}x.` });
}

const repliesTo = (n: number): number => machines.telegram.sent.filter((sent) => MARK.exec(sent.visible)?.[1] === String(n)).length;

async function readyStatus(app: AppProcess): Promise<number> {
  return (await fetch(`${httpUrl(app)}/readyz`)).status;
}

describe("PostgreSQL going away under a gateway and a worker", () => {
  it("answers the message whose run was under way once, after an outage longer than its retries, and the one written during the outage once", async () => {
    const worker = await machines.start("worker", "worker", "worker started");
    const gateway = await machines.start("gateway", "gateway", '"msg":"gateway started"');
    await waitUntil(async () => (await readyStatus(gateway)) === 200, "the gateway to be ready");

    say(1);
    // The worker is running it: the model has been asked and is still answering.
    await waitUntil(() => machines.llm.requests.length >= 1, "the run of m1x to reach the model");
    await setDatabaseReachable(machines.databaseUrl, false);
    await waitUntil(async () => (await readyStatus(gateway)) === 503, "the gateway to report the store unready", 15_000);
    const during = say(2, 43);
    // The run's answer could not be kept meanwhile: the worker says why.
    await waitUntil(() => /not currently accepting connections|terminating connection/.test(worker.stderr()), "the worker to log the database's failure", 30_000);

    // Longer than the queue's 5 attempts would last (backing off from 1 s to 8 s): failures while the database is away
    // use none of them, so the run is still there to answer once it is back.
    // Five waits of 5 s: past the 15 s the attempts would have lasted.
    await waitUntil(() => (worker.stderr().match(/runs again once the database is back/g) ?? []).length >= 5, "the run to wait for the database", 60_000);
    expect(worker.stderr()).not.toContain('"attemptsMade":');
    await setDatabaseReachable(machines.databaseUrl, true);
    await machines.telegram.waitForConfirmation(during.update);
    await waitUntil(() => repliesTo(1) >= 1 && repliesTo(2) >= 1, "both messages to be answered", 90_000);
    await waitUntil(async () => (await readyStatus(gateway)) === 200, "the gateway to be ready again", 15_000);

    // Neither process needed a restart, and a message after the outage is answered as usual.
    say(3);
    await waitUntil(() => repliesTo(3) === 1, "the answer after the outage", 60_000);
    expect({ m1: repliesTo(1), m2: repliesTo(2), m3: repliesTo(3) }).toEqual({ m1: 1, m2: 1, m3: 1 });
    expect([...machines.telegram.sentTo(42), ...machines.telegram.sentTo(43)].map((sent) => sent.visible).filter((text) => MARK.exec(text) === null && !text.startsWith("Got it. I'm still answering"))).toEqual([]);
    await machines.stop(gateway);
    await machines.stop(worker);
  }, 180_000);
});
