import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ensureRedisServer,
  lookupOnPath,
  MISSING_REDIS_LINE,
  runCommand,
  type CommandOutcome,
  type RedisSetupDeps,
} from "./redis-setup.js";

interface RecordedDeps extends RedisSetupDeps {
  commands: string[];
  lines: string[];
}

/** A machine described by what is on its PATH; `apt-get install` puts redis-server there unless told to fail. */
function machine(options: { onPath: string[]; uid: number | undefined; aptFails?: "update" | "install"; installPutsNothing?: boolean }): RecordedDeps {
  const onPath = new Set(options.onPath);
  const commands: string[] = [];
  const lines: string[] = [];
  return {
    commands,
    lines,
    findOnPath: (name) => (onPath.has(name) ? `/usr/bin/${name}` : undefined),
    uid: () => options.uid,
    run: async (command, args, env): Promise<CommandOutcome> => {
      commands.push(`${env.DEBIAN_FRONTEND ?? ""} ${command} ${args.join(" ")}`.trim());
      if (args[0] === "update") {
        return options.aptFails === "update" ? { ok: false, detail: "W: some warning\nE: Could not get lock /var/lib/apt/lists/lock" } : { ok: true };
      }
      if (options.aptFails === "install") return { ok: false, detail: "Reading package lists...\nE: Unable to locate package redis-server\n" };
      if (options.installPutsNothing !== true) onPath.add("redis-server");
      return { ok: true };
    },
    writeLine: (line) => void lines.push(line),
  };
}

describe("ensureRedisServer", () => {
  it("uses a redis-server already on PATH without installing or printing anything", async () => {
    const deps = machine({ onPath: ["redis-server", "apt-get"], uid: 0 });
    expect(await ensureRedisServer(deps)).toEqual({ ok: true, binary: "/usr/bin/redis-server", installed: false });
    expect(deps.commands).toEqual([]);
    expect(deps.lines).toEqual([]);
  });

  it("accepts valkey-server when redis-server is absent", async () => {
    const deps = machine({ onPath: ["valkey-server"], uid: 1000 });
    expect(await ensureRedisServer(deps)).toEqual({ ok: true, binary: "/usr/bin/valkey-server", installed: false });
    expect(deps.commands).toEqual([]);
  });

  it("installs redis-server once with apt-get as root and says so in one line", async () => {
    const deps = machine({ onPath: ["apt-get"], uid: 0 });
    expect(await ensureRedisServer(deps)).toEqual({ ok: true, binary: "/usr/bin/redis-server", installed: true });
    expect(deps.commands).toEqual([
      "noninteractive /usr/bin/apt-get update -qq",
      "noninteractive /usr/bin/apt-get install -y -qq redis-server",
    ]);
    expect(deps.lines).toHaveLength(1);
    expect(deps.lines[0]).toMatch(/installing the redis-server package with apt-get/);

    expect(await ensureRedisServer(deps)).toMatchObject({ ok: true, installed: false });
    expect(deps.commands).toHaveLength(2);
  });

  it("fails at once with one line naming the package when not root", async () => {
    const deps = machine({ onPath: ["apt-get"], uid: 1000 });
    expect(await ensureRedisServer(deps)).toEqual({ ok: false, line: MISSING_REDIS_LINE });
    expect(MISSING_REDIS_LINE).toContain("redis-server (or valkey-server) package");
    expect(deps.commands).toEqual([]);
    expect(deps.lines).toEqual([]);
  });

  it("fails at once without apt-get, even as root", async () => {
    const deps = machine({ onPath: [], uid: 0 });
    expect(await ensureRedisServer(deps)).toEqual({ ok: false, line: MISSING_REDIS_LINE });
    expect(deps.commands).toEqual([]);
  });

  it("turns a failed install into one line carrying apt-get's reason", async () => {
    const deps = machine({ onPath: ["apt-get"], uid: 0, aptFails: "install" });
    const result = await ensureRedisServer(deps);
    expect(result).toEqual({
      ok: false,
      line: "could not install redis-server (apt-get install redis-server failed: E: Unable to locate package redis-server); install the redis-server (or valkey-server) package yourself",
    });
  });

  it("stops after a failed apt-get update", async () => {
    const deps = machine({ onPath: ["apt-get"], uid: 0, aptFails: "update" });
    const result = await ensureRedisServer(deps);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.line).toContain("apt-get update failed: E: Could not get lock");
    expect(deps.commands).toEqual(["noninteractive /usr/bin/apt-get update -qq"]);
  });

  it("reports an install that leaves no redis-server on PATH", async () => {
    const deps = machine({ onPath: ["apt-get"], uid: 0, installPutsNothing: true });
    const result = await ensureRedisServer(deps);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.line).toContain("still not on PATH");
  });
});

describe("a Redis-less machine with a real PATH and a stand-in apt-get", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "hermes-redis-setup-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function executable(file: string, body: string): Promise<void> {
    await writeFile(file, `#!/bin/sh\n${body}\n`);
    await chmod(file, 0o755);
  }

  it("finds only executable files, in PATH order", async () => {
    const first = path.join(dir, "a");
    const second = path.join(dir, "b");
    await mkdir(first);
    await mkdir(second);
    await writeFile(path.join(first, "redis-server"), "not executable");
    await mkdir(path.join(first, "valkey-server"));
    await executable(path.join(second, "redis-server"), "exit 0");
    await executable(path.join(second, "valkey-server"), "exit 0");
    const pathValue = [path.join(dir, "missing"), first, second].join(path.delimiter);
    expect(lookupOnPath("redis-server", pathValue)).toBe(path.join(second, "redis-server"));
    expect(lookupOnPath("valkey-server", pathValue)).toBe(path.join(second, "valkey-server"));
    expect(lookupOnPath("redis-server", "")).toBeUndefined();
    expect(lookupOnPath("redis-server", undefined)).toBeUndefined();
  });

  it("runs apt-get for real and finds the server it installed", async () => {
    const log = path.join(dir, "apt.log");
    await executable(
      path.join(dir, "apt-get"),
      [
        `echo "$DEBIAN_FRONTEND $*" >> ${JSON.stringify(log)}`,
        `if [ "$1" = install ]; then printf '#!/bin/sh\\nexit 0\\n' > ${JSON.stringify(path.join(dir, "redis-server"))}; chmod +x ${JSON.stringify(path.join(dir, "redis-server"))}; fi`,
      ].join("\n"),
    );
    const lines: string[] = [];
    const result = await ensureRedisServer({
      findOnPath: (name) => lookupOnPath(name, dir),
      uid: () => 0,
      run: runCommand,
      writeLine: (line) => void lines.push(line),
    });
    expect(result).toEqual({ ok: true, binary: path.join(dir, "redis-server"), installed: true });
    expect(await readFile(log, "utf8")).toBe("noninteractive update -qq\nnoninteractive install -y -qq redis-server\n");
    expect(lines).toHaveLength(1);
  });

  it("reports a real failing apt-get with its last error line", async () => {
    await executable(path.join(dir, "apt-get"), 'echo "Reading package lists..."; echo "E: Unable to locate package redis-server" >&2; exit 100');
    const result = await ensureRedisServer({
      findOnPath: (name) => lookupOnPath(name, dir),
      uid: () => 0,
      run: runCommand,
      writeLine: () => undefined,
    });
    expect(result).toMatchObject({ ok: false, line: expect.stringContaining("apt-get update failed: E: Unable to locate package redis-server") });
  });
});
