import { execFile, spawn, type ChildProcess } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { chown, mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { findSystemPostgresBinaries, MISSING_POSTGRES_LINE, type PostgresBinaries } from "./postgres-setup.js";
import { freePort } from "./free-port.js";

export interface TestPostgres {
  /** Connection URL of the `postgres` database, as the superuser. */
  url: string;
  port: number;
  dataDir: string;
  /** Creates an empty database (e.g. one per test) and resolves with its connection URL. */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

/** The cluster's superuser; trust authentication on loopback, so it needs no password. */
export const TEST_POSTGRES_USER = "hermes";

/** The account the server runs as when the tests run as root, which PostgreSQL refuses. */
const UNPRIVILEGED_ACCOUNT = "nobody";
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 5_000;
const PORT_ATTEMPTS = 3;

interface Account {
  uid: number;
  gid: number;
}

/**
 * Starts a private, throw-away PostgreSQL cluster (fresh initdb in a temp folder) on a free loopback port; the
 * postmaster is this process's child, so the test owns it. Durability is switched off: the data is thrown away.
 */
export async function startPostgres(): Promise<TestPostgres> {
  // The suite's global set-up installs them when it can; this only guards runs that bypass it.
  const binaries = findSystemPostgresBinaries();
  if (binaries === undefined) throw new Error(MISSING_POSTGRES_LINE);
  const account = serverAccount();
  const dir = await mkdtemp(path.join(os.tmpdir(), "hermes-postgres-"));
  try {
    const dataDir = path.join(dir, "data");
    const socketDir = path.join(dir, "run");
    await mkdir(socketDir);
    if (account !== undefined) {
      await chown(dir, account.uid, account.gid);
      await chown(socketDir, account.uid, account.gid);
    }
    await initCluster(binaries, dataDir, account);
    let lastError: unknown;
    for (let attempt = 0; attempt < PORT_ATTEMPTS; attempt += 1) {
      // Another process may take the free port before postgres binds it; a fresh port then usually works.
      try {
        return await startOnPort({ binaries, account, dir, dataDir, socketDir, port: await freePort() });
      } catch (error) {
        lastError = error;
      }
    }
    throw lastError;
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/** Root runs the server as an unprivileged account; anyone else runs it as themselves. */
function serverAccount(): Account | undefined {
  if (process.getuid?.() !== 0) return undefined;
  let passwd = "";
  try {
    passwd = readFileSync("/etc/passwd", "utf8");
  } catch {
    // Handled below with the same message as a missing entry.
  }
  for (const entry of passwd.split("\n")) {
    const [name, , uid, gid] = entry.split(":");
    if (name === UNPRIVILEGED_ACCOUNT && uid !== undefined && gid !== undefined) return { uid: Number(uid), gid: Number(gid) };
  }
  throw new Error(`PostgreSQL refuses to run as root and there is no "${UNPRIVILEGED_ACCOUNT}" account in /etc/passwd to run it as`);
}

function initCluster(binaries: PostgresBinaries, dataDir: string, account: Account | undefined): Promise<void> {
  const args = ["-D", dataDir, "-U", TEST_POSTGRES_USER, "--auth=trust", "--encoding=UTF8", "--no-locale", "--no-sync"];
  return new Promise((resolve, reject) => {
    execFile(binaries.initdb, args, { ...processOptions(account, path.dirname(dataDir)), maxBuffer: 4 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error === null) return resolve();
      reject(new Error(`initdb failed: ${error.message}\n${String(stdout)}\n${String(stderr)}`.trim()));
    });
  });
}

function processOptions(account: Account | undefined, cwd: string): { cwd: string; env: NodeJS.ProcessEnv; uid?: number; gid?: number } {
  // The C locale exists everywhere; the operator's LANG may name one that is not installed.
  const env = { ...process.env, LC_ALL: "C", LANG: "C" };
  return account === undefined ? { cwd, env } : { cwd, env, uid: account.uid, gid: account.gid };
}

interface StartOptions {
  binaries: PostgresBinaries;
  account: Account | undefined;
  dir: string;
  dataDir: string;
  socketDir: string;
  port: number;
}

async function startOnPort(options: StartOptions): Promise<TestPostgres> {
  const { dir, dataDir, port } = options;
  const settings = [
    "listen_addresses=127.0.0.1",
    `unix_socket_directories=${options.socketDir}`,
    "fsync=off",
    "synchronous_commit=off",
    "full_page_writes=off",
    "shared_buffers=16MB",
    // One server serves a whole `vitest run` (global-setup.ts): several files at once, each store a pool of its own.
    "max_connections=300",
  ];
  const child = spawn(options.binaries.postgres, ["-D", dataDir, "-p", String(port), ...settings.flatMap((setting) => ["-c", setting])], {
    ...processOptions(options.account, dir),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const collect = (chunk: Buffer): void => {
    output = (output + chunk.toString("utf8")).slice(-4_000);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    // A process that could not be spawned at all may never emit "exit".
    child.once("error", (error) => {
      output += `\n${error.message}`;
      if (child.pid === undefined) resolve();
    });
  });
  // If the test process exits without stop(), neither the server nor its folder may outlive it.
  const killOnExit = (): void => {
    child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  };
  process.once("exit", killOnExit);

  const url = `postgres://${TEST_POSTGRES_USER}@127.0.0.1:${port}/postgres`;
  try {
    await waitForConnections(url, child, exited);
  } catch (error) {
    child.kill("SIGKILL");
    await exited;
    process.off("exit", killOnExit);
    throw new Error(`postgres did not start on port ${port}: ${String(error)}\n${output}`);
  }

  let stopping: Promise<void> | undefined;
  return {
    url,
    port,
    dataDir,
    createDatabase: (name) => createDatabase(url, port, name),
    stop: () => {
      stopping ??= (async () => {
        if (isRunning(child)) {
          // SIGINT is PostgreSQL's fast shutdown: it ends the sessions and stops without waiting for clients.
          child.kill("SIGINT");
          const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
          await exited;
          clearTimeout(timer);
        }
        process.off("exit", killOnExit);
        await rm(dir, { recursive: true, force: true });
      })();
      return stopping;
    },
  };
}

async function createDatabase(url: string, port: number, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
  return `postgres://${TEST_POSTGRES_USER}@127.0.0.1:${port}/${encodeURIComponent(name)}`;
}

function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

async function waitForConnections(url: string, child: ChildProcess, exited: Promise<void>): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  let gone = false;
  void exited.then(() => (gone = true));
  let lastError: unknown = new Error("no attempt made");
  while (Date.now() < deadline) {
    if (gone || !isRunning(child)) throw new Error("postgres exited");
    // Until it is up, connecting fails (refused, or "the database system is starting up"); both mean try again.
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
    client.on("error", () => undefined);
    try {
      await client.connect();
      await client.query("SELECT 1");
      await client.end();
      return;
    } catch (error) {
      lastError = error;
      await client.end().catch(() => undefined);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no connection in time: ${String(lastError)}`);
}
