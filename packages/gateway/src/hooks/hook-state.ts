import { randomBytes } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";

/** `$HERMES_HOME/hooks/state.json`: the operator's enable/disable choices, which win over each manifest's `enabled`. */
export interface HookStateOverrides {
  disabled: string[];
  enabled: string[];
}

const StateFileSchema = Type.Object({
  disabled: Type.Optional(Type.Array(Type.String())),
  enabled: Type.Optional(Type.Array(Type.String())),
});

export const NO_OVERRIDES: HookStateOverrides = { disabled: [], enabled: [] };

export interface HookStateSnapshot {
  /** Changes whenever the file does; "absent" when there is no file. */
  version: string;
  overrides: HookStateOverrides;
  /** Why the file was not used (it is then treated as empty). */
  error?: string;
  /** False when the file had changed too recently for an equal version to prove it unchanged since (see hookStateStamp). */
  settled?: boolean;
}

/** How long after its last change an equal stat proves the file unchanged. */
const UNSETTLED_STATE_MS = 2_000;

/**
 * Only a stat: cheap enough to run before every event to notice an edit made by `hermes hooks enable`. A missing file
 * costs no error object (it is the usual case). `settled` is false within 2 s of the file's last change: modification
 * times are coarse (a clock tick, up to 2 s on some file systems) and inode numbers are reused, so a second write in
 * the same tick can leave the version as it was.
 */
export function hookStateStamp(file: string | undefined): { version: string; settled: boolean } {
  if (file === undefined) return { version: "none", settled: true };
  try {
    const info = statSync(file, { throwIfNoEntry: false });
    if (info === undefined) return { version: "absent", settled: true };
    // The ctime too: a file rewritten in place with its old mtime put back (`cp -p`, `touch -r`) keeps inode and size.
    return { version: `${info.ino}-${info.size}-${info.mtimeMs}-${info.ctimeMs}`, settled: Date.now() - info.mtimeMs > UNSETTLED_STATE_MS };
  } catch {
    return { version: "absent", settled: true };
  }
}

export function hookStateVersion(file: string | undefined): string {
  return hookStateStamp(file).version;
}

export function readHookState(file: string | undefined): HookStateSnapshot {
  const { version, settled } = hookStateStamp(file);
  if (file === undefined || version === "absent" || version === "none") return { version, overrides: NO_OVERRIDES };
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    return { version, settled, overrides: NO_OVERRIDES, error: `${file}: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (!Value.Check(StateFileSchema, data)) {
    return { version, settled, overrides: NO_OVERRIDES, error: `${file}: expected {"disabled": [names], "enabled": [names]}` };
  }
  return { version, settled, overrides: { disabled: data.disabled ?? [], enabled: data.enabled ?? [] } };
}

/** A name in both lists counts as disabled: when in doubt, run less code. */
export function isHookEnabled(name: string, manifestEnabled: boolean, overrides: HookStateOverrides): boolean {
  if (overrides.disabled.includes(name)) return false;
  if (overrides.enabled.includes(name)) return true;
  return manifestEnabled;
}

export function withHookEnabled(overrides: HookStateOverrides, name: string, enabled: boolean): HookStateOverrides {
  const disabled = overrides.disabled.filter((entry) => entry !== name);
  const enabledNames = overrides.enabled.filter((entry) => entry !== name);
  (enabled ? enabledNames : disabled).push(name);
  return { disabled: disabled.sort(), enabled: enabledNames.sort() };
}

/** Written to a temporary file and renamed into place, so a running gateway never reads half a file. */
export async function writeHookState(file: string, overrides: HookStateOverrides): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const staging = `${file}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    await writeFile(staging, `${JSON.stringify(overrides, null, 2)}\n`, "utf8");
    await rename(staging, file);
  } finally {
    await rm(staging, { force: true });
  }
}
