import { execFile } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";

/** Binaries that can serve the tests' Redis, in order of preference (Valkey is Redis's drop-in fork). */
export const REDIS_SERVER_NAMES = ["redis-server", "valkey-server"] as const;

export const MISSING_REDIS_LINE =
  "redis-server not found on PATH: install the redis-server (or valkey-server) package, e.g. `sudo apt-get install redis-server`";

export type CommandOutcome = { ok: true } | { ok: false; detail: string };

export interface RedisSetupDeps {
  /** Absolute path of an executable with this name on PATH, or undefined. */
  findOnPath(name: string): string | undefined;
  /** The effective user id, or undefined where the platform has none. */
  uid(): number | undefined;
  run(command: string, args: readonly string[], env: Readonly<Record<string, string>>): Promise<CommandOutcome>;
  writeLine(line: string): void;
}

export type RedisSetupResult = { ok: true; binary: string; installed: boolean } | { ok: false; line: string };

export function findRedisServer(findOnPath: RedisSetupDeps["findOnPath"]): string | undefined {
  for (const name of REDIS_SERVER_NAMES) {
    const found = findOnPath(name);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Makes sure a Redis server binary is on PATH before the suite starts: found → nothing to do; missing on a machine
 * where apt-get can be used → install it once and say so in one line; otherwise → one line naming the package.
 */
export async function ensureRedisServer(deps: RedisSetupDeps): Promise<RedisSetupResult> {
  const present = findRedisServer(deps.findOnPath);
  if (present !== undefined) return { ok: true, binary: present, installed: false };

  const aptGet = deps.findOnPath("apt-get");
  if (deps.uid() !== 0 || aptGet === undefined) return { ok: false, line: MISSING_REDIS_LINE };

  deps.writeLine("redis-server not found on PATH: installing the redis-server package with apt-get (once, for the tests)");
  const env = { DEBIAN_FRONTEND: "noninteractive" };
  const update = await deps.run(aptGet, ["update", "-qq"], env);
  if (!update.ok) return { ok: false, line: installFailedLine("apt-get update", update.detail) };
  const install = await deps.run(aptGet, ["install", "-y", "-qq", "redis-server"], env);
  if (!install.ok) return { ok: false, line: installFailedLine("apt-get install redis-server", install.detail) };

  const installed = findRedisServer(deps.findOnPath);
  if (installed === undefined) {
    return { ok: false, line: installFailedLine("apt-get install redis-server", "redis-server still not on PATH afterwards") };
  }
  return { ok: true, binary: installed, installed: true };
}

function installFailedLine(step: string, detail: string): string {
  return `could not install redis-server (${step} failed: ${oneLine(detail)}); install the redis-server (or valkey-server) package yourself`;
}

function oneLine(text: string): string {
  const lines = text.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== "");
  // apt-get puts the reason ("E: Unable to locate package …") on its last lines.
  return (lines.at(-1) ?? "no output").slice(0, 300);
}

/** Looks a command up on a PATH string the way a shell would: the first directory holding an executable file wins. */
export function lookupOnPath(name: string, pathValue: string | undefined): string | undefined {
  for (const dir of (pathValue ?? "").split(path.delimiter)) {
    if (dir === "") continue;
    const candidate = path.join(dir, name);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here; keep looking.
    }
  }
  return undefined;
}

/** Runs a command to completion; its output is kept only to explain a failure. */
export function runCommand(command: string, args: readonly string[], env: Readonly<Record<string, string>>): Promise<CommandOutcome> {
  return new Promise((resolve) => {
    execFile(command, [...args], { env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error === null) return resolve({ ok: true });
      const output = `${String(stdout)}\n${String(stderr)}`.trim();
      resolve({ ok: false, detail: output === "" ? error.message : output });
    });
  });
}

export function systemRedisSetupDeps(pathValue: string | undefined = process.env.PATH): RedisSetupDeps {
  return {
    findOnPath: (name) => lookupOnPath(name, pathValue),
    uid: () => process.getuid?.(),
    run: runCommand,
    writeLine: (line) => void process.stderr.write(`${line}\n`),
  };
}
