import { readdirSync } from "node:fs";
import path from "node:path";
import { lookupOnPath, runCommand, type CommandOutcome } from "./redis-setup.js";

/** Where Debian's `postgresql` package puts the server binaries (they are not on PATH there). */
export const DEBIAN_POSTGRES_ROOT = "/usr/lib/postgresql";

export const MISSING_POSTGRES_LINE =
  "PostgreSQL (initdb and postgres) not found on PATH or in /usr/lib/postgresql/<version>/bin: install the postgresql package, e.g. `sudo apt-get install postgresql`";

export interface PostgresBinaries {
  initdb: string;
  postgres: string;
}

export interface PostgresSetupDeps {
  /** Absolute path of an executable with this name on PATH, or undefined. */
  findOnPath(name: string): string | undefined;
  /** Absolute path of this executable in a directory, or undefined. */
  findInDir(dir: string, name: string): string | undefined;
  /** Entry names of a directory; [] when it does not exist. */
  listDir(dir: string): string[];
  /** The effective user id, or undefined where the platform has none. */
  uid(): number | undefined;
  run(command: string, args: readonly string[], env: Readonly<Record<string, string>>): Promise<CommandOutcome>;
  writeLine(line: string): void;
}

export type PostgresSetupResult = { ok: true; binaries: PostgresBinaries; installed: boolean } | { ok: false; line: string };

/**
 * The server binaries: both on PATH (a source build, Homebrew, an image's symlinks), else the highest version in
 * Debian's versioned folders. initdb and postgres come from one place, so their versions match.
 */
export function findPostgresBinaries(deps: Pick<PostgresSetupDeps, "findOnPath" | "findInDir" | "listDir">): PostgresBinaries | undefined {
  const initdb = deps.findOnPath("initdb");
  const postgres = deps.findOnPath("postgres");
  if (initdb !== undefined && postgres !== undefined) return { initdb, postgres };

  const versions = deps
    .listDir(DEBIAN_POSTGRES_ROOT)
    .filter((name) => /^\d+(\.\d+)?$/.test(name))
    .sort((a, b) => b.localeCompare(a, "en", { numeric: true }));
  for (const version of versions) {
    const bin = path.join(DEBIAN_POSTGRES_ROOT, version, "bin");
    const versionedInitdb = deps.findInDir(bin, "initdb");
    const versionedPostgres = deps.findInDir(bin, "postgres");
    if (versionedInitdb !== undefined && versionedPostgres !== undefined) return { initdb: versionedInitdb, postgres: versionedPostgres };
  }
  return undefined;
}

/**
 * Makes sure PostgreSQL's server binaries exist before the suite starts: found → nothing to do; missing on a machine
 * where apt-get can be used → install Debian's `postgresql` once and say so in one line; otherwise → one line naming
 * the package.
 */
export async function ensurePostgresServer(deps: PostgresSetupDeps): Promise<PostgresSetupResult> {
  const present = findPostgresBinaries(deps);
  if (present !== undefined) return { ok: true, binaries: present, installed: false };

  const aptGet = deps.findOnPath("apt-get");
  if (deps.uid() !== 0 || aptGet === undefined) return { ok: false, line: MISSING_POSTGRES_LINE };

  deps.writeLine("PostgreSQL not found: installing the postgresql package with apt-get (once, for the tests)");
  const env = { DEBIAN_FRONTEND: "noninteractive" };
  const update = await deps.run(aptGet, ["update", "-qq"], env);
  if (!update.ok) return { ok: false, line: installFailedLine("apt-get update", update.detail) };
  const install = await deps.run(aptGet, ["install", "-y", "-qq", "postgresql"], env);
  if (!install.ok) return { ok: false, line: installFailedLine("apt-get install postgresql", install.detail) };

  const installed = findPostgresBinaries(deps);
  if (installed === undefined) {
    return { ok: false, line: installFailedLine("apt-get install postgresql", "initdb and postgres still not found afterwards") };
  }
  return { ok: true, binaries: installed, installed: true };
}

function installFailedLine(step: string, detail: string): string {
  return `could not install PostgreSQL (${step} failed: ${lastLine(detail)}); install the postgresql package yourself`;
}

function lastLine(text: string): string {
  const lines = text.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== "");
  // apt-get puts the reason ("E: Unable to locate package …") on its last lines.
  return (lines.at(-1) ?? "no output").slice(0, 300);
}

function listDirOrNothing(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

export function systemPostgresSetupDeps(pathValue: string | undefined = process.env.PATH): PostgresSetupDeps {
  return {
    findOnPath: (name) => lookupOnPath(name, pathValue),
    findInDir: (dir, name) => lookupOnPath(name, dir),
    listDir: listDirOrNothing,
    uid: () => process.getuid?.(),
    run: runCommand,
    writeLine: (line) => void process.stderr.write(`${line}\n`),
  };
}

/** The binaries on this machine, for the server helper; the global set-up has installed them when it could. */
export function findSystemPostgresBinaries(): PostgresBinaries | undefined {
  return findPostgresBinaries(systemPostgresSetupDeps());
}
