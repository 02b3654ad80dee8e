import { execFile } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";
import { ensureDebianPackage, type DebianPackageDeps } from "./debian-package.js";

/** Binaries that can serve the tests' Redis, in order of preference (Valkey is Redis's drop-in fork). */
export const REDIS_SERVER_NAMES = ["redis-server", "valkey-server"] as const;

export const MISSING_REDIS_LINE =
  "redis-server not found on PATH: install the redis-server (or valkey-server) package, e.g. `sudo apt-get install redis-server`";

export type CommandOutcome = { ok: true } | { ok: false; detail: string };

export type RedisSetupDeps = DebianPackageDeps;

export type RedisSetupResult = { ok: true; binary: string; installed: boolean } | { ok: false; line: string };

export function findRedisServer(findOnPath: RedisSetupDeps["findOnPath"]): string | undefined {
  for (const name of REDIS_SERVER_NAMES) {
    const found = findOnPath(name);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Makes sure a Redis server binary is on PATH before the suite starts (installing the redis-server package when it
 * can, see ensureDebianPackage).
 */
export async function ensureRedisServer(deps: RedisSetupDeps): Promise<RedisSetupResult> {
  const result = await ensureDebianPackage(deps, {
    name: "redis-server",
    find: () => findRedisServer(deps.findOnPath),
    label: "redis-server",
    notFound: "redis-server not found on PATH",
    missingLine: MISSING_REDIS_LINE,
    stillMissing: "redis-server still not on PATH afterwards",
    installYourself: "the redis-server (or valkey-server) package",
  });
  return result.ok ? { ok: true, binary: result.found, installed: result.installed } : result;
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
