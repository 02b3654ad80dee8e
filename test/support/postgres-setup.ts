import { readdirSync } from "node:fs";
import path from "node:path";
import { ensureDebianPackage, type DebianPackageDeps } from "./debian-package.js";
import { lookupOnPath, runCommand } from "./redis-setup.js";

/** Where Debian's `postgresql` package puts the server binaries (they are not on PATH there). */
export const DEBIAN_POSTGRES_ROOT = "/usr/lib/postgresql";

export const MISSING_POSTGRES_LINE =
  "PostgreSQL (initdb and postgres) not found on PATH or in /usr/lib/postgresql/<version>/bin: install the postgresql package, e.g. `sudo apt-get install postgresql`";

export interface PostgresBinaries {
  initdb: string;
  postgres: string;
}

export interface PostgresSetupDeps extends DebianPackageDeps {
  /** Absolute path of this executable in a directory, or undefined. */
  findInDir(dir: string, name: string): string | undefined;
  /** Entry names of a directory; [] when it does not exist. */
  listDir(dir: string): string[];
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
 * Makes sure PostgreSQL's server binaries exist before the suite starts (installing Debian's `postgresql` when it
 * can, see ensureDebianPackage).
 */
export async function ensurePostgresServer(deps: PostgresSetupDeps): Promise<PostgresSetupResult> {
  const result = await ensureDebianPackage(deps, {
    name: "postgresql",
    find: () => findPostgresBinaries(deps),
    label: "PostgreSQL",
    notFound: "PostgreSQL not found",
    missingLine: MISSING_POSTGRES_LINE,
    stillMissing: "initdb and postgres still not found afterwards",
    installYourself: "the postgresql package",
  });
  return result.ok ? { ok: true, binaries: result.found, installed: result.installed } : result;
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
