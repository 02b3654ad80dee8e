import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { migrationNames, openStore } from "@hermes/store";
import { fillSqliteInstall, readFilledInstall } from "../packages/store/src/copy/filled-install.fixture.js";
import { closedPort } from "./support/free-port.js";
import { startPostgres, type TestPostgres } from "./support/postgres-server.js";
import { runCli } from "./support/run-cli.js";

let server: TestPostgres;
let databaseCount = 0;
let root: string;

beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await server?.stop();
});
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "hermes-cli-db-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const home = (): string => path.join(root, "state");
const env = (extra: Record<string, string> = {}): Record<string, string> => ({ HOME: root, HERMES_HOME: home(), ...extra });

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A fresh database whose URL carries a password (the test server trusts loopback, so it is never checked). */
async function databaseWithPassword(): Promise<{ url: string; password: string }> {
  databaseCount += 1;
  const url = new URL(await server.createDatabase(`cli_db_${databaseCount}`));
  url.password = `pw-${databaseCount}-secret`;
  return { url: url.toString(), password: url.password };
}

describe("hermes db migrate", () => {
  it("migrates $HERMES_HOME/state.db without HERMES_DATABASE_URL, then finds it up to date", async () => {
    const first = await runCli(["db", "migrate"], { env: env() });
    expect({ code: first.code, stderr: first.stderr }).toEqual({ code: 0, stderr: "" });
    expect(first.stdout).toContain(`Database: ${path.join(home(), "state.db")}`);
    expect(first.stdout).toContain(`Applied ${migrationNames().length} migration(s): ${migrationNames().join(", ")}`);
    const second = await runCli(["db", "migrate"], { env: env() });
    expect(second.code).toBe(0);
    expect(second.stdout).toContain("Already up to date.");
    expect(await readdir(home())).toContain("state.db");
  });

  it("migrates the PostgreSQL database named in config.yaml, never printing its password", async () => {
    const { url, password } = await databaseWithPassword();
    await mkdir(home(), { recursive: true });
    await writeFile(path.join(home(), "config.yaml"), `HERMES_DATABASE_URL: "${url}"\n`);
    const first = await runCli(["db", "migrate"], { env: env() });
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^Database: postgres:\/\/hermes:\*\*\*@127\.0\.0\.1:\d+\/cli_db_\d+\nApplied \d+ migration\(s\): 0001_initial/);
    const second = await runCli(["db", "migrate"], { env: env({ HERMES_DATABASE_URL: url }) });
    expect(second.stdout).toContain("Already up to date.");
    expect(`${first.stdout}${first.stderr}${second.stdout}${second.stderr}`).not.toContain(password);
    expect(await readdir(home())).not.toContain("state.db");
  });

  it("exits 1 when the database cannot be reached and 2 when the setting is not a PostgreSQL URL", async () => {
    const unreachable = await runCli(["db", "migrate"], { env: env({ HERMES_DATABASE_URL: `postgres://hermes:hidden-pw@127.0.0.1:${await closedPort()}/none` }) });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/^hermes db migrate: cannot migrate postgres:\/\/hermes:\*\*\*@127\.0\.0\.1:\d+\/none: .*ECONNREFUSED/);
    expect(unreachable.stderr).not.toContain("hidden-pw");
    const invalid = await runCli(["db", "migrate"], { env: env({ HERMES_DATABASE_URL: "mysql://db.example/hermes" }) });
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain("HERMES_DATABASE_URL");
  });
});

describe("hermes db copy --to", () => {
  it("copies $HERMES_HOME/state.db, prints the verified counts, and refuses to copy into the same database again", async () => {
    const file = path.join(home(), "state.db");
    const filled = await fillSqliteInstall(file);
    await mkdir(path.join(home(), "skills", "tram-times"), { recursive: true });
    await writeFile(path.join(home(), "skills", "tram-times", "SKILL.md"), "---\nname: tram-times\n---\nAsk the timetable.\n");
    await mkdir(path.join(home(), "hooks"), { recursive: true });
    await writeFile(path.join(home(), "hooks", "state.json"), '{"audit-log":{"enabled":true}}\n');
    const { url, password } = await databaseWithPassword();

    const copied = await runCli(["db", "copy", "--to", url], { env: env() });
    expect({ code: copied.code, failure: copied.code === 0 ? "" : copied.stderr }).toEqual({ code: 0, failure: "" });
    expect(copied.stdout).toContain(`Copying ${file} into postgres://hermes:***@127.0.0.1`);
    expect(copied.stdout).toMatch(/every table has as many rows in PostgreSQL as in SQLite/);
    expect(copied.stdout).toMatch(/^ {2}table +SQLite +PostgreSQL$/m);
    expect(copied.stdout).toMatch(/^ {2}sessions +3 +3$/m);
    expect(copied.stdout).toMatch(/^ {2}messages +\d+ +\d+$/m);
    expect(copied.stdout).toContain("copied without them (PostgreSQL cannot store NUL): sessions 1, messages 1.");
    expect(copied.stdout).toMatch(new RegExp(`Shared 2 file\\(s\\) of ${escapeRegExp(home())} \\(agent-made skills, hook choices; \\d+ bytes\\), 0 already there\\.\\nNext: set HERMES_DATABASE_URL=postgres://hermes:\\*\\*\\*@`));
    expect(copied.stderr).toContain("  sessions: 3 row(s)");
    expect(`${copied.stdout}${copied.stderr}`).not.toContain(password);

    const sqliteStore = await openStore({ file });
    const postgresStore = await openStore({ file: path.join(root, "unused.db"), databaseUrl: url });
    try {
      const [before, after] = [await readFilledInstall(sqliteStore, filled), await readFilledInstall(postgresStore, filled)];
      // The shared files are the copied rows plus the skill and hook state of $HERMES_HOME.
      const withoutFiles = (read: unknown): string => JSON.stringify({ ...(read as object), sharedFiles: undefined });
      expect(withoutFiles(after)).toEqual(withoutFiles(before).replace("Recipes\\u0000draft", "Recipesdraft"));
      const paths = (read: unknown): string[] => (read as { sharedFiles: Array<{ path: string }> }).sharedFiles.map((entry) => entry.path).sort();
      expect(paths(after)).toEqual([...paths(before), "skills/tram-times/SKILL.md"].sort());
      expect((await postgresStore.sharedFiles.get("hooks/state.json"))?.content.toString()).toBe('{"audit-log":{"enabled":true}}\n');
    } finally {
      await sqliteStore.close();
      await postgresStore.close();
    }

    const again = await runCli(["db", "copy", "--to", url], { env: env() });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^hermes db copy: the target database already holds rows \(in sessions, .*\); copy only into an empty database\. Nothing was written$/m);
  });

  it("exits 1 naming a skill file too large to share before anything is copied, so the copy can simply be run again", async () => {
    await fillSqliteInstall(path.join(home(), "state.db"));
    await mkdir(path.join(home(), "skills", "huge"), { recursive: true });
    const huge = path.join(home(), "skills", "huge", "data.bin");
    await writeFile(huge, Buffer.alloc(21 * 1024 * 1024));
    const { url } = await databaseWithPassword();
    const refused = await runCli(["db", "copy", "--to", url], { env: env() });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`hermes db copy: nothing was copied: skills/huge/data.bin: ${21 * 1024 * 1024} bytes is over the`);
    expect(refused.stdout).not.toMatch(/sessions/);

    await rm(huge);
    const copied = await runCli(["db", "copy", "--to", url], { env: env() });
    expect(copied.code).toBe(0);
    expect(copied.stdout).toMatch(/^ {2}sessions +3 +3$/m);
  });

  it("exits 2 without --to or with a URL that is not PostgreSQL's, and 1 when there is no SQLite file to copy", async () => {
    const missing = await runCli(["db", "copy"], { env: env() });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^Missing option --to <postgres-url>\.\n\nUsage: hermes db copy \[--to <postgres-url>\]/);
    const wrong = await runCli(["db", "copy", "--to", "https://user:pw@db.example/x"], { env: env() });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("--to must be a postgres:// or postgresql:// URL, not https://….");
    expect(wrong.stderr).not.toContain("pw@");

    const { url } = await databaseWithPassword();
    const nothing = await runCli(["db", "copy", "--to", url], { env: env() });
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toContain(`hermes db copy: there is no SQLite database at ${path.join(home(), "state.db")}`);
    await expect(readdir(home())).resolves.not.toContain("state.db");
  });
});
