import { mkdtemp, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "@hermes/agent";
import { PairingService } from "@hermes/gateway";
import { openStore, type Store } from "@hermes/store";
import { runCli } from "./support/run-cli.js";
import { createTestDatabase, type TestDatabase } from "./support/test-database.js";

// The operator CLI on a machine of its own: an empty HERMES_HOME, the deployment's PostgreSQL in HERMES_DATABASE_URL.

let root: string;
let database: TestDatabase;
const stores: Store[] = [];

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "hermes-cli-pg-"));
  database = await createTestDatabase();
});
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  await database.drop();
  await rm(root, { recursive: true, force: true });
});

const env = (): Record<string, string> => ({ HOME: root, HERMES_HOME: path.join(root, "cli-home"), HERMES_DATABASE_URL: database.url });

/** The deployment's store, as a gateway elsewhere sees it. */
async function deploymentStore(): Promise<Store> {
  const store = await openStore({ file: path.join(root, "unused.db"), databaseUrl: database.url });
  stores.push(store);
  return store;
}

describe("hermes operator commands against HERMES_DATABASE_URL", () => {
  it("approves a pairing code a gateway elsewhere issued, and queues the notice in the shared outbox", async () => {
    const store = await deploymentStore();
    const outcome = await new PairingService({ store: store.pairing, logger: silentLogger }).requestCode({ platform: "telegram", userId: "99", userName: "Stranger", chatId: "99" });
    if (outcome.kind !== "code_issued") throw new Error(`unexpected ${outcome.kind}`);

    const approved = await runCli(["pairing", "approve", "telegram", outcome.code], { env: env() });
    expect(approved.stderr).toBe("");
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain("Approved Stranger (telegram:99)");
    expect(await store.pairing.isApproved("telegram", "99")).toBe(true);
    expect(await store.deliveries.pending()).toMatchObject([{ platform: "telegram", chatId: "99", kind: "notice" }]);
    // Nothing was written beside the CLI: its home holds no state database.
    expect(await readdir(path.join(root, "cli-home")).catch(() => [])).not.toContain("state.db");
  });

  it("lists sessions and shows a transcript stored by another machine", async () => {
    const store = await deploymentStore();
    const { session } = await store.sessions.getOrCreateActive({ key: "agent:main:telegram:dm:42", platform: "telegram", chatId: "42", chatType: "dm", userId: "42", title: "Trip planning" });
    await store.messages.append(session.id, [{ role: "user", content: "Plan my trip to Lisbon", timestamp: 1 }]);

    const list = await runCli(["sessions", "list"], { env: env() });
    expect(list.code).toBe(0);
    expect(list.stdout).toContain("Trip planning");
    const show = await runCli(["sessions", "show", session.id], { env: env() });
    expect(show.code).toBe(0);
    expect(show.stdout).toContain("Plan my trip to Lisbon");
  });

  it("lists and removes a scheduled task a run on another machine created", async () => {
    const store = await deploymentStore();
    const job = { id: "cd34ef56", platform: "telegram", chatId: "42", chatType: "dm" as const, creatorId: "42", sessionKey: "agent:main:telegram:dm:42", schedule: "0 8 * * *", kind: "cron" as const, prompt: "summarise my inbox", nextRunAt: Date.now() + 3_600_000, createdAt: Date.now() };
    await store.cronJobs.create(job);

    const listed = await runCli(["cron", "list", "--json"], { env: env() });
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id: job.id, platform: "telegram", chatId: "42", prompt: "summarise my inbox" })]);
    const removed = await runCli(["cron", "remove", job.id], { env: env() });
    expect(removed.code).toBe(0);
    expect(await store.cronJobs.get(job.id)).toBeUndefined();
    expect(await readdir(path.join(root, "cli-home")).catch(() => [])).not.toContain("state.db");
  });

  it("hermes doctor checks the database: reachable, migrated, writable; an unreachable one fails naming it without the password", async () => {
    const good = await runCli(["doctor", "--json"], { env: env() });
    const report = JSON.parse(good.stdout) as { checks: Array<{ name: string; status: string; detail: string }> };
    const store = report.checks.find((check) => check.name === "store");
    expect(store).toMatchObject({ status: "ok", detail: expect.stringContaining("takes writes") });
    expect(store?.detail).toContain(new URL(database.url).pathname.slice(1));

    const unreachable = "postgres://hermes:hunter2-secret@127.0.0.1:1/nowhere";
    const bad = await runCli(["doctor", "--json"], { env: { ...env(), HERMES_DATABASE_URL: unreachable } });
    const failed = (JSON.parse(bad.stdout) as typeof report).checks.find((check) => check.name === "store");
    expect(failed).toMatchObject({ status: "fail", detail: expect.stringContaining("cannot open postgres://hermes:***@127.0.0.1:1/nowhere") });
    expect(bad.stdout + bad.stderr).not.toContain("hunter2-secret");
    expect(bad.code).not.toBe(0);
  });

  it("refuses a HERMES_DATABASE_URL that is not a PostgreSQL URL, naming the setting", async () => {
    const run = await runCli(["sessions", "list"], { env: { ...env(), HERMES_DATABASE_URL: "mysql://db/hermes" } });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("HERMES_DATABASE_URL");
    expect(run.stderr).toContain("postgres:");
  });
});
