import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { openStore } from "@hermes/store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "./support/run-cli.js";
import { createTestDatabase, type TestDatabase } from "./support/test-database.js";

let root: string;
let database: TestDatabase;
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "hermes-cli-dbmem-"));
  database = await createTestDatabase();
});
afterEach(async () => {
  await database.drop();
  await rm(root, { recursive: true, force: true });
});

const installHome = (): string => path.join(root, "install");

describe("hermes db copy and the memory files", () => {
  it("moves an install's MEMORY.md and USER.md into the database, where hermes memory on another machine reads them", async () => {
    await (await openStore({ file: path.join(installHome(), "state.db") })).close();
    const ada = path.join(installHome(), "memory", "users", "telegram", "42");
    await mkdir(ada, { recursive: true });
    await writeFile(path.join(ada, "MEMORY.md"), "§ Works on the Nightingale project\n");
    await writeFile(path.join(ada, "USER.md"), "§ Prefers tea\n");

    const copied = await runCli(["db", "copy", "--to", database.url], { env: { HOME: root, HERMES_HOME: installHome() } });
    expect({ code: copied.code, failure: copied.code === 0 ? "" : copied.stderr }).toEqual({ code: 0, failure: "" });
    expect(copied.stdout).toMatch(/^ {2}memory_documents +2 +2$/m);
    expect(copied.stdout).toContain("memory_documents: 2 of its rows are the memory files (MEMORY.md, USER.md) of $HERMES_HOME/memory.");

    const shown = await runCli(["memory", "show", "telegram:42", "--json"], { env: { HOME: root, HERMES_HOME: path.join(root, "other"), HERMES_DATABASE_URL: database.url } });
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ memory: ["Works on the Nightingale project"], userProfile: ["Prefers tea"] });
  });
});
