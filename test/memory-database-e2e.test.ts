import { access, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { openStore } from "@hermes/store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RecordedRequest } from "./fakes/llm-server.js";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.js";
import { runCli } from "./support/run-cli.js";
import { waitUntil } from "./support/wait-until.js";
import { createTestDatabase, type TestDatabase } from "./support/test-database.js";

// Two machines: each gateway has a HERMES_HOME of its own, and they share only the PostgreSQL database.
let database: TestDatabase;
let root: string;
const harnesses: GatewayHarness[] = [];

beforeEach(async () => {
  database = await createTestDatabase();
  root = await mkdtemp(path.join(os.tmpdir(), "hermes-memdb-"));
});
afterEach(async () => {
  for (const harness of harnesses.splice(0)) await harness.close();
  await database.drop();
  await rm(root, { recursive: true, force: true });
});

async function machine(name: string): Promise<GatewayHarness> {
  const home = path.join(root, name);
  const harness = await startGatewayHarness({ HERMES_DATABASE_URL: database.url, HERMES_ALLOWED_USERS: "telegram:7" }, home);
  harnesses.push(harness);
  return harness;
}

const ADA_DM = "agent:main:telegram:dm:7";
const ADA_IN_GROUP = "agent:main:telegram:group:-100:7";
const IN_GROUP = { chat: { id: "-100", type: "group" as const }, mentionedBot: true };
const remember = (content: string) => ({ kind: "tools" as const, calls: [{ name: "memory", arguments: { action: "add", target: "user", content } }] });
const everything = (requests: readonly RecordedRequest[]): string => JSON.stringify(requests.map((request) => request.body));

/** What `harness`'s model was sent while Ada said `text` (in `where`) and the run finished. */
async function requestsFor(harness: GatewayHarness, text: string, where: { sessionKey: string; group?: boolean }): Promise<RecordedRequest[]> {
  const before = harness.llm.requests.length;
  await harness.adapter.userSays(text, where.group ? IN_GROUP : {});
  await harness.gateway.waitIdle(where.sessionKey);
  return harness.llm.requests.slice(before);
}

const cliEnv = (): Record<string, string> => ({ HOME: root, HERMES_HOME: path.join(root, "operator"), HERMES_DATABASE_URL: database.url });

describe("memory in the database (HERMES_DATABASE_URL)", () => {
  it("a fact saved on one machine is in the next session's prompt on the other, hermes memory lists it, /forget erases it", async () => {
    const first = await machine("first");
    const second = await machine("second");

    // The second machine's group session takes its snapshot before the fact exists.
    second.llm.enqueue({ kind: "text", text: "Hello Ada." });
    expect(everything(await requestsFor(second, "@hermes hello", { sessionKey: ADA_IN_GROUP, group: true }))).not.toContain("Nightingale");

    first.llm.enqueue(remember("Ada's secret project is Nightingale"), { kind: "text", text: "Noted." });
    await requestsFor(first, "Remember that my secret project is Nightingale", { sessionKey: ADA_DM });
    // Nothing of it went to the first machine's own folder.
    await expect(access(path.join(first.home, "memory", "users", "telegram", "7", "USER.md"))).rejects.toThrow();

    // Within the session the prompt stays frozen; the next session on the other machine has the fact.
    second.llm.enqueue({ kind: "text", text: "Still here." });
    expect(everything(await requestsFor(second, "@hermes still there?", { sessionKey: ADA_IN_GROUP, group: true }))).not.toContain("Nightingale");
    await requestsFor(second, "/new", { sessionKey: ADA_IN_GROUP, group: true });
    second.llm.enqueue({ kind: "text", text: "Nightingale." });
    const next = await requestsFor(second, "@hermes what is my project?", { sessionKey: ADA_IN_GROUP, group: true });
    expect(next).toHaveLength(1);
    expect(everything(next)).toContain("Ada's secret project is Nightingale");

    // The operator's CLI, on a third machine with an empty home, reads the same entries.
    const shown = await runCli(["memory", "show", "telegram:7"], { env: cliEnv() });
    expect({ code: shown.code, stderr: shown.stderr }).toEqual({ code: 0, stderr: "" });
    expect(shown.stdout).toContain("§ Ada's secret project is Nightingale");

    const repliesBefore = second.adapter.texts("100").length;
    await second.adapter.userSays("/forget confirm");
    await second.gateway.waitIdle(ADA_DM);
    // A command's reply goes out through the outbox, which waitIdle (runs of the session) does not wait for.
    await waitUntil(() => second.adapter.texts("100").length > repliesBefore, "the /forget reply");
    expect(second.adapter.texts("100").at(-1)).toContain("erased");
    const afterForget = await runCli(["memory", "show", "telegram:7"], { env: cliEnv() });
    expect(afterForget.stdout).toBe("Nothing saved for telegram:7.\n");
  });

  it("hermes memory forget erases the person's rows in the database and nobody else's", async () => {
    const store = await openStore({ file: path.join(root, "unused.db"), databaseUrl: database.url });
    try {
      await store.memoryDocuments.write("users/telegram/42/USER.md", "§ Prefers tea\n", undefined);
      await store.memoryDocuments.write("users/telegram/42/MEMORY.md", "§ Works on Nightingale\n", undefined);
      await store.memoryDocuments.write("users/telegram/43/USER.md", "§ Bob's fact\n", undefined);
      const shown = await runCli(["memory", "show", "telegram:42", "--json"], { env: cliEnv() });
      expect(JSON.parse(shown.stdout)).toMatchObject({ memory: ["Works on Nightingale"], userProfile: ["Prefers tea"] });
      const forgot = await runCli(["memory", "forget", "telegram:42"], { env: cliEnv() });
      expect({ code: forgot.code, stdout: forgot.stdout }).toEqual({ code: 0, stdout: "Erased the memory of telegram:42.\n" });
      expect(await store.memoryDocuments.list("users/")).toEqual(["users/telegram/43/USER.md"]);
    } finally {
      await store.close();
    }
  });
});
