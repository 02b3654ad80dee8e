import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "@hermes/agent";
import { PairingService } from "@hermes/gateway";
import { openStore } from "@hermes/store";
import { runCli } from "./support/run-cli.js";

let home: string;
beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), "hermes-ops-"));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

const env = (): Record<string, string> => ({ HOME: home, HERMES_HOME: path.join(home, "state") });

describe("operator commands", () => {
  it("hermes pairing approve <platform> <code> approves a waiting user; a wrong code is refused", async () => {
    const store = await openStore({ file: path.join(home, "state", "state.db") });
    const service = new PairingService({ store: store.pairing, logger: silentLogger });
    const outcome = await service.requestCode({ platform: "telegram", userId: "99", userName: "Stranger", chatId: "99" });
    await store.close();
    if (outcome.kind !== "code_issued") throw new Error(`unexpected ${outcome.kind}`);

    const wrong = await runCli(["pairing", "approve", "telegram", "ZZZZZZZZ"], { env: env() });
    expect(wrong.code).toBe(1);
    const right = await runCli(["pairing", "approve", "telegram", outcome.code.toLowerCase()], { env: env() });
    expect(right.code).toBe(0);
    expect(right.stdout).toContain("Approved Stranger (telegram:99)");

    expect(right.stdout).toContain("can start chatting");

    const check = await openStore({ file: path.join(home, "state", "state.db") });
    expect(await check.pairing.isApproved("telegram", "99")).toBe(true);
    // The running gateway sends it from the outbox: the CLI holds no platform connection.
    expect(await check.deliveries.pending()).toMatchObject([
      { platform: "telegram", chatId: "99", kind: "notice", text: "You're approved — you can start chatting now." },
    ]);
    await check.close();
  });

  it("hermes hooks disable/enable changes the state the gateway reads", async () => {
    const disabled = await runCli(["hooks", "disable", "keyword-blocker"], { env: env() });
    expect(disabled.code).toBe(0);
    const list = await runCli(["hooks", "list"], { env: env() });
    expect(list.stdout).toMatch(/keyword-blocker\s+disabled/);
    const unknown = await runCli(["hooks", "enable", "no-such-hook"], { env: env() });
    expect(unknown.code).toBe(1);
  });

  it("hermes sessions list/show prints recent conversations and a transcript", async () => {
    const store = await openStore({ file: path.join(home, "state", "state.db") });
    const { session } = await store.sessions.getOrCreateActive({ key: "agent:main:telegram:dm:42", platform: "telegram", chatId: "42", chatType: "dm", userId: "42", title: "Trip planning" });
    await store.messages.append(session.id, [{ role: "user", content: "Plan my trip to Lisbon", timestamp: 1 }]);
    await store.close();
    const list = await runCli(["sessions", "list"], { env: env() });
    expect(list.code).toBe(0);
    expect(list.stdout).toContain("agent:main:telegram:dm:42");
    expect(list.stdout).toContain('"Trip planning"');
    const mine = await runCli(["sessions", "list", "--user", "telegram:42"], { env: env() });
    expect(mine.stdout).toContain(session.id);
    const show = await runCli(["sessions", "show", session.id], { env: env() });
    expect(show.code).toBe(0);
    expect(show.stdout).toContain("Plan my trip to Lisbon");
    expect((await runCli(["sessions", "show", "nope"], { env: env() })).code).toBe(1);
  });

  it("--json prints only JSON for sessions list/show and pairing list", async () => {
    const store = await openStore({ file: path.join(home, "state", "state.db") });
    const { session } = await store.sessions.getOrCreateActive({ key: "agent:main:telegram:dm:7", platform: "telegram", chatId: "7", chatType: "dm", userId: "7", title: "Recipes" });
    await store.messages.append(session.id, [{ role: "user", content: "Soup ideas?", timestamp: 1 }]);
    const service = new PairingService({ store: store.pairing, logger: silentLogger });
    await service.requestCode({ platform: "discord", userId: "55", userName: "Waiting", chatId: "55" });
    await store.close();

    const list = await runCli(["sessions", "list", "--json"], { env: env() });
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ id: session.id, key: "agent:main:telegram:dm:7", title: "Recipes", messages: 1 })]);
    const show = await runCli(["sessions", "show", session.id, "--json"], { env: env() });
    expect(JSON.parse(show.stdout)).toMatchObject({ session: { id: session.id }, usage: { runs: 0 }, messages: [{ role: "user", content: "Soup ideas?" }] });
    const pairing = await runCli(["pairing", "list", "--json"], { env: env() });
    expect(pairing.code).toBe(0);
    expect(JSON.parse(pairing.stdout)).toEqual({ pending: [expect.objectContaining({ platform: "discord", userId: "55", userName: "Waiting" })], approved: [] });
  });

  it("prints usage for an unknown command with exit status 2", async () => {
    const run = await runCli(["frobnicate"], { env: env() });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Usage: hermes");
  });
});
