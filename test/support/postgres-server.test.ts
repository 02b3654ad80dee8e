import { existsSync, readFileSync, readdirSync } from "node:fs";
import { chmod, mkdtemp, readFile, readdir, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findSystemPostgresBinaries } from "./postgres-setup.js";
import { startPostgres, TEST_POSTGRES_USER, type TestPostgres } from "./postgres-server.js";

async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** The postmaster's pid, from the file PostgreSQL keeps in its data folder while it runs. */
function postmasterPid(server: TestPostgres): number {
  return Number(readFileSync(path.join(server.dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
}

/** The postmaster and the processes it forked (checkpointer, WAL writer, backends …). */
function serverProcesses(pid: number): number[] {
  const children = readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        // Field 4 of /proc/<pid>/stat is the parent pid; the name before it is parenthesised and may hold spaces.
        const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
  return [pid, ...children];
}

function processUid(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
}

describe("a private PostgreSQL server", () => {
  let server: TestPostgres;
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("answers on 127.0.0.1 as the fixed superuser, with durability switched off", async () => {
    expect(server.url).toBe(`postgres://${TEST_POSTGRES_USER}@127.0.0.1:${server.port}/postgres`);
    const row = await withClient(server.url, async (client) => {
      const result = await client.query<{ version: string; user: string; encoding: string }>(
        "SELECT version() AS version, current_user AS user, pg_encoding_to_char(encoding) AS encoding FROM pg_database WHERE datname = current_database()",
      );
      return result.rows[0];
    });
    expect(row?.version).toMatch(/^PostgreSQL \d+/);
    expect(row?.user).toBe(TEST_POSTGRES_USER);
    expect(row?.encoding).toBe("UTF8");
    const settings = await withClient(server.url, async (client) => {
      const names = ["listen_addresses", "fsync", "synchronous_commit", "full_page_writes", "unix_socket_directories"];
      const result = await client.query<{ name: string; setting: string }>("SELECT name, setting FROM pg_settings WHERE name = ANY($1)", [names]);
      return Object.fromEntries(result.rows.map((setting) => [setting.name, setting.setting]));
    });
    expect(settings).toEqual({
      listen_addresses: "127.0.0.1",
      fsync: "off",
      synchronous_commit: "off",
      full_page_writes: "off",
      unix_socket_directories: path.join(path.dirname(server.dataDir), "run"),
    });
  });

  it("runs unprivileged even when the tests run as root", () => {
    const uid = processUid(postmasterPid(server));
    if (process.getuid?.() === 0) expect(uid).not.toBe(0);
    else expect(uid).toBe(process.getuid?.());
  });

  it("creates a database in which a table keeps what is written", async () => {
    const url = await server.createDatabase("per-test db");
    expect(url).toBe(`postgres://${TEST_POSTGRES_USER}@127.0.0.1:${server.port}/per-test%20db`);
    await withClient(url, async (client) => {
      expect((await client.query<{ name: string }>("SELECT current_database() AS name")).rows).toEqual([{ name: "per-test db" }]);
      await client.query("CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL)");
      await client.query("INSERT INTO notes (body) VALUES ($1), ($2)", ["héllo", "wörld ✓"]);
    });
    const bodies = await withClient(url, async (client) => (await client.query<{ body: string }>("SELECT body FROM notes ORDER BY id")).rows);
    expect(bodies).toEqual([{ body: "héllo" }, { body: "wörld ✓" }]);
    await expect(server.createDatabase("per-test db")).rejects.toThrow(/already exists/);
  });

  it("runs beside a second one on another port, and that one's stop leaves no process and no folder", async () => {
    const second = await startPostgres();
    try {
      expect(second.port).not.toBe(server.port);
      expect(second.dataDir).not.toBe(server.dataDir);
      const ports = await Promise.all(
        [server, second].map((each) => withClient(each.url, async (client) => (await client.query<{ port: string }>("SHOW port")).rows[0]?.port)),
      );
      expect(ports).toEqual([String(server.port), String(second.port)]);

      // An open session must not hold the fast shutdown up.
      const session = new pg.Client({ connectionString: second.url });
      session.on("error", () => undefined);
      await session.connect();
      const processes = serverProcesses(postmasterPid(second));
      expect(processes.length).toBeGreaterThan(1);
      await second.stop();
      await session.end().catch(() => undefined);
      expect(processes.filter((pid) => existsSync(`/proc/${pid}`))).toEqual([]);
      expect(existsSync(path.dirname(second.dataDir))).toBe(false);
      await second.stop();
    } finally {
      await second.stop();
    }
    // The first one is untouched.
    expect(await withClient(server.url, async (client) => (await client.query<{ one: number }>("SELECT 1 AS one")).rows)).toEqual([{ one: 1 }]);
  });
});

describe("a start that fails halfway", () => {
  it("removes its folder when postgres will not come up, after trying other ports", async () => {
    const real = findSystemPostgresBinaries();
    if (real === undefined) throw new Error("the global set-up should have provided PostgreSQL");
    const fakeBin = await mkdtemp(path.join(os.tmpdir(), "hermes-postgres-fakebin-"));
    const tmp = await mkdtemp(path.join(os.tmpdir(), "hermes-postgres-tmp-"));
    const saved = { PATH: process.env.PATH, TMPDIR: process.env.TMPDIR };
    try {
      // Run as an unprivileged account, the server must be able to reach both folders.
      await chmod(fakeBin, 0o755);
      await chmod(tmp, 0o755);
      await symlink(real.initdb, path.join(fakeBin, "initdb"));
      const attempts = path.join(fakeBin, "attempts");
      await writeFile(attempts, "");
      await chmod(attempts, 0o666);
      await writeFile(path.join(fakeBin, "postgres"), `#!/bin/sh\necho "$4" >> ${JSON.stringify(attempts)}\necho "FATAL: stand-in refuses to start" >&2\nexit 1\n`);
      await chmod(path.join(fakeBin, "postgres"), 0o755);
      process.env.PATH = fakeBin;
      process.env.TMPDIR = tmp;
      await expect(startPostgres()).rejects.toThrow(/postgres did not start on port \d+: Error: postgres exited\n.*stand-in refuses to start/);
      expect(await readdir(tmp)).toEqual([]);
      const ports = (await readFile(attempts, "utf8")).trim().split("\n");
      expect(ports).toHaveLength(3);
      expect(new Set(ports).size).toBe(3);
    } finally {
      process.env.PATH = saved.PATH;
      if (saved.TMPDIR === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved.TMPDIR;
      await rm(fakeBin, { recursive: true, force: true });
      await rm(tmp, { recursive: true, force: true });
    }
  });
});
