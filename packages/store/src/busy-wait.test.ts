import { spawn, type ChildProcess } from "node:child_process";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { isBusyError, retryWhileBusy } from "./busy-retry.js";
import { assistantMessage, dmSession, storeFixtures, userMessage } from "./test-fixtures.js";

const fixtures = storeFixtures();
const connections: BetterSqlite3.Database[] = [];
const children: ChildProcess[] = [];
const timers: NodeJS.Timeout[] = [];
afterEach(async () => {
  for (const timer of timers.splice(0)) clearInterval(timer);
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill();
  for (const connection of connections.splice(0)) if (connection.open) connection.close();
  await fixtures.cleanup();
});

/** Counts the ticks of a 10 ms interval timer: they only come while the event loop is free. */
function tickCounter(): { ticks: () => number } {
  let ticks = 0;
  timers.push(setInterval(() => (ticks += 1), 10));
  return { ticks: () => ticks };
}

function lockedBySecondConnection(file: string): BetterSqlite3.Database {
  const other = new BetterSqlite3(file);
  connections.push(other);
  other.prepare("BEGIN IMMEDIATE").run();
  return other;
}

describe("waiting for another connection's write lock", () => {
  it("keeps the event loop running while a write waits, and the write succeeds once the lock is released", async () => {
    const { store, file } = await fixtures.openNew();
    const other = lockedBySecondConnection(file);
    const counter = tickCounter();
    const events: string[] = [];
    let ticksAtRelease = 0;
    // Released by a timer of this very process: a write that blocked the thread would hold this back until it failed.
    setTimeout(() => {
      ticksAtRelease = counter.ticks();
      events.push("released");
      other.prepare("COMMIT").run();
    }, 1_000);

    const ticksBefore = counter.ticks();
    await store.pairing.recordFailure("telegram", 1).then(() => events.push("written"));

    expect(events).toEqual(["released", "written"]);
    expect(ticksAtRelease - ticksBefore).toBeGreaterThanOrEqual(10);
    expect(await store.pairing.failuresSince("telegram", 0)).toBe(1);
  });

  it("applies a retried transaction once", async () => {
    const { store, file } = await fixtures.openNew();
    const { session } = await store.sessions.getOrCreateActive(dmSession("u1"));
    const other = lockedBySecondConnection(file);
    setTimeout(() => other.prepare("COMMIT").run(), 300);

    await store.messages.append(session.id, [userMessage("question"), assistantMessage("answer")]);
    expect((await store.messages.list(session.id)).map((entry) => entry.seq)).toEqual([0, 1]);
  });

  it("keeps the event loop running while another process holds the lock", async () => {
    const { store, file } = await fixtures.openNew();
    const holder = spawn(
      process.execPath,
      ["-e", `const db = new (require("better-sqlite3"))(process.argv[1]); db.prepare("BEGIN IMMEDIATE").run(); console.log("locked"); setTimeout(() => { db.prepare("COMMIT").run(); db.close(); }, 1000);`, file],
      { cwd: import.meta.dirname, stdio: ["ignore", "pipe", "inherit"] },
    );
    children.push(holder);
    await new Promise<void>((resolve) => holder.stdout?.once("data", () => resolve()));
    const counter = tickCounter();

    const { session } = await store.sessions.getOrCreateActive(dmSession("u2"));
    const ticksWhileWaiting = counter.ticks();

    expect(ticksWhileWaiting).toBeGreaterThanOrEqual(10);
    expect(await store.sessions.get(session.id)).toMatchObject({ key: session.key });
  });

  it("answers what needs no write while another connection holds the write lock: an existing session, nothing to claim", async () => {
    const { store, file } = await fixtures.openNew({ busyTimeoutMs: 0 });
    const { session } = await store.sessions.getOrCreateActive(dmSession("u1"));
    const other = lockedBySecondConnection(file);

    expect(await store.sessions.getOrCreateActive(dmSession("u1"))).toEqual({ session, created: false });
    expect(await store.inbound.claimNext(session.key)).toBeUndefined();
    await expect(store.sessions.getOrCreateActive(dmSession("u2"))).rejects.toSatisfy(isBusyError);
    other.prepare("ROLLBACK").run();
  });

  it("gives up with SQLITE_BUSY once busyTimeoutMs has passed", async () => {
    const { store, file } = await fixtures.openNew({ busyTimeoutMs: 200 });
    lockedBySecondConnection(file);
    const failed = await store.chatSettings.set("slack", "C1", { mentionMode: "all" }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isBusyError(failed)).toBe(true);
  });

  it("answers the readiness probe with the lock as an error value", async () => {
    const { store, file } = await fixtures.openNew({ busyTimeoutMs: 100 });
    lockedBySecondConnection(file);
    expect(await store.checkWritable()).toEqual({ ok: false, error: expect.stringMatching(/locked/) });
  });
});

describe("retryWhileBusy", () => {
  it("does not retry other errors", async () => {
    let attempts = 0;
    const policy = { maxWaitMs: 1_000, firstDelayMs: 1, maxDelayMs: 2, random: () => 0.5, now: Date.now };
    const failed = await retryWhileBusy(async () => {
      attempts += 1;
      throw Object.assign(new Error("UNIQUE constraint failed"), { code: "SQLITE_CONSTRAINT_UNIQUE" });
    }, policy).catch((error: unknown) => error);
    expect(failed).toMatchObject({ code: "SQLITE_CONSTRAINT_UNIQUE" });
    expect(attempts).toBe(1);
  });
});
