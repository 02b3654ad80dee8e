import type { CommandOutcome } from "./redis-setup.js";

export interface DebianPackageDeps {
  /** Absolute path of an executable with this name on PATH, or undefined. */
  findOnPath(name: string): string | undefined;
  /** The effective user id, or undefined where the platform has none. */
  uid(): number | undefined;
  run(command: string, args: readonly string[], env: Readonly<Record<string, string>>): Promise<CommandOutcome>;
  writeLine(line: string): void;
}

/** What the tests need from a Debian package, and how to speak of it in the one line a failure prints. */
export interface DebianPackage<T> {
  /** The package apt-get installs, e.g. `redis-server`. */
  name: string;
  /** What the suite looks for: undefined while it is missing. */
  find(): T | undefined;
  /** How what is looked for is named in messages, e.g. "redis-server" or "PostgreSQL". */
  label: string;
  /** Why it is about to be installed, e.g. "redis-server not found on PATH". */
  notFound: string;
  /** The line when it is missing and cannot be installed here. */
  missingLine: string;
  /** Why an install that succeeded did not help. */
  stillMissing: string;
  /** What the operator should install instead, e.g. "the postgresql package". */
  installYourself: string;
}

export type DebianPackageResult<T> = { ok: true; found: T; installed: boolean } | { ok: false; line: string };

/**
 * Makes sure what a suite needs is installed before it starts: found → nothing to do; missing on a machine where
 * apt-get can be used (as root) → install the package once and say so in one line; otherwise → one line naming it.
 */
export async function ensureDebianPackage<T>(deps: DebianPackageDeps, wanted: DebianPackage<T>): Promise<DebianPackageResult<T>> {
  const present = wanted.find();
  if (present !== undefined) return { ok: true, found: present, installed: false };

  const aptGet = deps.findOnPath("apt-get");
  if (deps.uid() !== 0 || aptGet === undefined) return { ok: false, line: wanted.missingLine };

  const failed = (step: string, detail: string): DebianPackageResult<T> => ({
    ok: false,
    line: `could not install ${wanted.label} (${step} failed: ${lastLine(detail)}); install ${wanted.installYourself} yourself`,
  });
  deps.writeLine(`${wanted.notFound}: installing the ${wanted.name} package with apt-get (once, for the tests)`);
  const env = { DEBIAN_FRONTEND: "noninteractive" };
  const update = await deps.run(aptGet, ["update", "-qq"], env);
  if (!update.ok) return failed("apt-get update", update.detail);
  const install = await deps.run(aptGet, ["install", "-y", "-qq", wanted.name], env);
  if (!install.ok) return failed(`apt-get install ${wanted.name}`, install.detail);

  const installed = wanted.find();
  if (installed === undefined) return failed(`apt-get install ${wanted.name}`, wanted.stillMissing);
  return { ok: true, found: installed, installed: true };
}

function lastLine(text: string): string {
  const lines = text.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== "");
  // apt-get puts the reason ("E: Unable to locate package …") on its last lines.
  return (lines.at(-1) ?? "no output").slice(0, 300);
}
