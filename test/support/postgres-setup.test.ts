import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ensurePostgresServer,
  findPostgresBinaries,
  MISSING_POSTGRES_LINE,
  systemPostgresSetupDeps,
  type PostgresSetupDeps,
} from "./postgres-setup.js";
import { lookupOnPath, runCommand, type CommandOutcome } from "./redis-setup.js";

interface RecordedDeps extends PostgresSetupDeps {
  commands: string[];
  lines: string[];
}

/**
 * A machine described by what is on its PATH and which Debian versions are installed; `apt-get install postgresql`
 * adds version 15 unless told to fail.
 */
function machine(options: {
  onPath: string[];
  versions?: Record<string, string[]>;
  uid: number | undefined;
  aptFails?: "update" | "install";
  installPutsNothing?: boolean;
}): RecordedDeps {
  const onPath = new Set(options.onPath);
  const versions = new Map(Object.entries(options.versions ?? {}));
  const commands: string[] = [];
  const lines: string[] = [];
  return {
    commands,
    lines,
    findOnPath: (name) => (onPath.has(name) ? `/usr/bin/${name}` : undefined),
    findInDir: (dir, name) => {
      const version = /^\/usr\/lib\/postgresql\/([^/]+)\/bin$/.exec(dir)?.[1];
      return version !== undefined && versions.get(version)?.includes(name) === true ? `${dir}/${name}` : undefined;
    },
    listDir: (dir) => (dir === "/usr/lib/postgresql" ? [...versions.keys()] : []),
    uid: () => options.uid,
    run: async (command, args, env): Promise<CommandOutcome> => {
      commands.push(`${env.DEBIAN_FRONTEND ?? ""} ${command} ${args.join(" ")}`.trim());
      if (args[0] === "update") {
        return options.aptFails === "update" ? { ok: false, detail: "E: Could not get lock /var/lib/apt/lists/lock" } : { ok: true };
      }
      if (options.aptFails === "install") return { ok: false, detail: "Reading package lists...\nE: Unable to locate package postgresql\n" };
      if (options.installPutsNothing !== true) versions.set("15", ["initdb", "postgres", "pg_ctl"]);
      return { ok: true };
    },
    writeLine: (line) => void lines.push(line),
  };
}

describe("findPostgresBinaries", () => {
  it("prefers initdb and postgres on PATH over Debian's folders", () => {
    const deps = machine({ onPath: ["initdb", "postgres"], versions: { "15": ["initdb", "postgres"] }, uid: 0 });
    expect(findPostgresBinaries(deps)).toEqual({ initdb: "/usr/bin/initdb", postgres: "/usr/bin/postgres" });
  });

  it("picks the highest Debian version, by number rather than by spelling", () => {
    const deps = machine({ onPath: [], versions: { "9.6": ["initdb", "postgres"], "15": ["initdb", "postgres"], "16": ["initdb", "postgres"] }, uid: 0 });
    expect(findPostgresBinaries(deps)).toEqual({ initdb: "/usr/lib/postgresql/16/bin/initdb", postgres: "/usr/lib/postgresql/16/bin/postgres" });
  });

  it("skips a version folder that lacks one of the two, and a PATH holding only one", () => {
    const deps = machine({ onPath: ["initdb"], versions: { "17": ["postgres"], "15": ["initdb", "postgres"], notaversion: ["initdb", "postgres"] }, uid: 0 });
    expect(findPostgresBinaries(deps)).toEqual({ initdb: "/usr/lib/postgresql/15/bin/initdb", postgres: "/usr/lib/postgresql/15/bin/postgres" });
    expect(findPostgresBinaries(machine({ onPath: ["postgres"], versions: { "17": ["initdb"] }, uid: 0 }))).toBeUndefined();
  });

  it("finds this machine's binaries, which the server tests then use", () => {
    const found = findPostgresBinaries(systemPostgresSetupDeps());
    expect(found?.initdb).toMatch(/\/initdb$/);
    expect(found?.postgres).toMatch(/\/postgres$/);
  });
});

describe("ensurePostgresServer", () => {
  it("uses binaries already there without installing or printing anything", async () => {
    const deps = machine({ onPath: ["initdb", "postgres", "apt-get"], uid: 0 });
    expect(await ensurePostgresServer(deps)).toEqual({
      ok: true,
      binaries: { initdb: "/usr/bin/initdb", postgres: "/usr/bin/postgres" },
      installed: false,
    });
    expect(deps.commands).toEqual([]);
    expect(deps.lines).toEqual([]);
  });

  it("installs postgresql once with apt-get as root and says so in one line", async () => {
    const deps = machine({ onPath: ["apt-get"], uid: 0 });
    expect(await ensurePostgresServer(deps)).toEqual({
      ok: true,
      binaries: { initdb: "/usr/lib/postgresql/15/bin/initdb", postgres: "/usr/lib/postgresql/15/bin/postgres" },
      installed: true,
    });
    expect(deps.commands).toEqual(["noninteractive /usr/bin/apt-get update -qq", "noninteractive /usr/bin/apt-get install -y -qq postgresql"]);
    expect(deps.lines).toHaveLength(1);
    expect(deps.lines[0]).toMatch(/installing the postgresql package with apt-get/);

    expect(await ensurePostgresServer(deps)).toMatchObject({ ok: true, installed: false });
    expect(deps.commands).toHaveLength(2);
  });

  it("fails at once with one line naming the package when not root", async () => {
    const deps = machine({ onPath: ["apt-get"], uid: 1000 });
    expect(await ensurePostgresServer(deps)).toEqual({ ok: false, line: MISSING_POSTGRES_LINE });
    expect(MISSING_POSTGRES_LINE).toContain("install the postgresql package");
    expect(MISSING_POSTGRES_LINE).not.toContain("\n");
    expect(deps.commands).toEqual([]);
    expect(deps.lines).toEqual([]);
  });

  it("fails at once without apt-get, even as root", async () => {
    const deps = machine({ onPath: [], uid: 0 });
    expect(await ensurePostgresServer(deps)).toEqual({ ok: false, line: MISSING_POSTGRES_LINE });
    expect(deps.commands).toEqual([]);
  });

  it("turns a failed install into one line carrying apt-get's reason", async () => {
    const deps = machine({ onPath: ["apt-get"], uid: 0, aptFails: "install" });
    expect(await ensurePostgresServer(deps)).toEqual({
      ok: false,
      line: "could not install PostgreSQL (apt-get install postgresql failed: E: Unable to locate package postgresql); install the postgresql package yourself",
    });
  });

  it("stops after a failed apt-get update", async () => {
    const deps = machine({ onPath: ["apt-get"], uid: 0, aptFails: "update" });
    const result = await ensurePostgresServer(deps);
    expect(result).toMatchObject({ ok: false, line: expect.stringContaining("apt-get update failed: E: Could not get lock") });
    expect(deps.commands).toEqual(["noninteractive /usr/bin/apt-get update -qq"]);
  });

  it("reports an install that leaves no binaries behind", async () => {
    const deps = machine({ onPath: ["apt-get"], uid: 0, installPutsNothing: true });
    expect(await ensurePostgresServer(deps)).toMatchObject({ ok: false, line: expect.stringContaining("still not found afterwards") });
  });
});

describe("a PostgreSQL-less machine with a real PATH and a stand-in apt-get", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "hermes-postgres-setup-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function executable(file: string, body: string): Promise<void> {
    await writeFile(file, `#!/bin/sh\n${body}\n`);
    await chmod(file, 0o755);
  }

  it("runs apt-get for real and finds the binaries it installed", async () => {
    const log = path.join(dir, "apt.log");
    const bin = path.join(dir, "installed");
    await mkdir(bin);
    const stub = (name: string): string => `printf '#!/bin/sh\\nexit 0\\n' > ${JSON.stringify(path.join(bin, name))}; chmod +x ${JSON.stringify(path.join(bin, name))}`;
    await executable(
      path.join(dir, "apt-get"),
      [`echo "$DEBIAN_FRONTEND $*" >> ${JSON.stringify(log)}`, `if [ "$1" = install ]; then ${stub("initdb")}; ${stub("postgres")}; fi`].join("\n"),
    );
    const lines: string[] = [];
    const result = await ensurePostgresServer({
      findOnPath: (name) => lookupOnPath(name, [dir, bin].join(path.delimiter)),
      findInDir: (folder, name) => lookupOnPath(name, folder),
      listDir: () => [],
      uid: () => 0,
      run: runCommand,
      writeLine: (line) => void lines.push(line),
    });
    expect(result).toEqual({ ok: true, binaries: { initdb: path.join(bin, "initdb"), postgres: path.join(bin, "postgres") }, installed: true });
    expect(await readFile(log, "utf8")).toBe("noninteractive update -qq\nnoninteractive install -y -qq postgresql\n");
    expect(lines).toHaveLength(1);
  });
});
