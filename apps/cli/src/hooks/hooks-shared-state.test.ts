import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { silentLogger } from "@hermes/agent";
import { HOOK_STATE_PATH, SharedFilesSync, isHookEnabled, readHookState } from "@hermes/gateway";
import { openStore, type Store } from "@hermes/store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../test/support/test-database.js";
import { parseGroupArgs } from "../cli/parse-command-line.js";
import { hooksCommand } from "../operator-commands.js";
import { HOOKS_GROUP } from "./hooks-spec.js";

let root = "";
let database: TestDatabase;
const stores: Store[] = [];

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "hermes-cli-hooks-"));
  database = await createTestDatabase();
});
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  await database.drop();
  await rm(root, { recursive: true, force: true });
});

/** `hermes hooks <args>` as the operator runs it, on a machine with its own HERMES_HOME and the shared database. */
async function hermesHooks(home: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const invocation = parseGroupArgs(HOOKS_GROUP, args);
  if (invocation.kind !== "run") throw new Error(`not a command line: ${args.join(" ")}`);
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
  const code = await hooksCommand(invocation.command, { env: { HERMES_HOME: home, HERMES_DATABASE_URL: database.url }, cwd: root, stdout, stderr });
  return { code, stdout: out, stderr: err };
}

async function gatewayHome(name: string): Promise<{ home: string; sync: SharedFilesSync }> {
  const home = path.join(root, name);
  await mkdir(home);
  const store = await openStore({ file: path.join(home, "state.db"), databaseUrl: database.url });
  stores.push(store);
  return { home, sync: new SharedFilesSync({ files: store.sharedFiles, home, logger: silentLogger }) };
}

describe("hermes hooks with HERMES_DATABASE_URL", () => {
  it("disable and enable go to the database, which a gateway on another HERMES_HOME follows after its pull", async () => {
    const operatorHome = path.join(root, "operator");
    const gateway = await gatewayHome("gateway");
    const gatewayState = (): boolean => isHookEnabled("keyword-blocker", true, readHookState(path.join(gateway.home, HOOK_STATE_PATH)).overrides);

    const disabled = await hermesHooks(operatorHome, ["disable", "keyword-blocker"]);
    expect(disabled).toMatchObject({ code: 0, stderr: "" });
    await gateway.sync.pull();
    expect(gatewayState()).toBe(false);

    // Another machine's CLI starts from the database's state, not from its own empty home.
    const listed = await hermesHooks(path.join(root, "laptop"), ["list"]);
    expect(listed.stdout).toMatch(/keyword-blocker\s+disabled\s+bundled/);

    expect((await hermesHooks(path.join(root, "laptop"), ["enable", "keyword-blocker"])).code).toBe(0);
    await gateway.sync.pull();
    expect(gatewayState()).toBe(true);
    expect((await hermesHooks(operatorHome, ["list"])).stdout).toMatch(/keyword-blocker\s+enabled\s+bundled/);
  });

  it("writes nothing to the database for an unknown hook", async () => {
    const run = await hermesHooks(path.join(root, "operator"), ["disable", "imaginary"]);
    expect(run.code).toBe(1);
    const gateway = await gatewayHome("gateway");
    expect(await gateway.sync.pull()).toEqual({ ok: true, written: [], removed: [] });
  });
});
