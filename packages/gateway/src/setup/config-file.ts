import { randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { isMap, parseDocument, Document } from "yaml";
import { readDotEnvFile } from "../config/dotenv-file.js";
import { isMissingFile } from "../config/file-errors.js";
import { CONFIG_YAML_NAME, DOTENV_NAME, resolveHermesHome } from "../config/sources.js";

/** Setting name → new value; `null` removes the key (e.g. HERMES_BASE_URL when switching to a hosted model). */
export type ConfigUpdates = ReadonlyMap<string, string | null>;

/** Where `config.yaml` lives: HERMES_HOME from the environment or `.env`, as every process resolves it. */
export async function configYamlPath(options: { env: Readonly<Record<string, string | undefined>>; cwd: string; homeDir?: string }): Promise<string> {
  const fromEnv = options.env.HERMES_HOME?.trim();
  const dotEnv = fromEnv ? undefined : await readDotEnvFile(path.join(options.cwd, DOTENV_NAME));
  const fromDotEnv = dotEnv?.ok ? dotEnv.vars.HERMES_HOME?.trim() : undefined;
  const home = resolveHermesHome(fromEnv || fromDotEnv || undefined, { cwd: options.cwd, homeDir: options.homeDir ?? os.homedir() });
  return path.join(home, CONFIG_YAML_NAME);
}

/**
 * Merges `updates` into config.yaml, keeping every other key and comment, and leaves the file readable by its owner
 * only (it holds tokens), also when it existed before. Written to a temporary file and renamed, so a crash never
 * leaves half a file; a file that is not valid YAML is left untouched.
 */
export async function saveConfigYaml(file: string, updates: ConfigUpdates): Promise<{ ok: true } | { ok: false; error: string }> {
  let text = "";
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if (!isMissingFile(error)) return { ok: false, error: `cannot read ${file}: ${error instanceof Error ? error.message : String(error)}` };
  }
  const doc = text.trim() === "" ? new Document({}) : parseDocument(text);
  if (doc.errors.length > 0) return { ok: false, error: `${file} is not valid YAML (${doc.errors[0]?.message.split("\n")[0] ?? ""}); fix or move it, then run the setup again` };
  if (!isMap(doc.contents)) return { ok: false, error: `${file} is not a mapping of setting names to values; fix or move it, then run the setup again` };
  for (const [name, value] of updates) {
    if (value === null) doc.delete(name);
    else doc.set(name, value);
  }
  const temporary = `${file}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    await writeFile(temporary, doc.toString(), { mode: 0o600 });
    await chmod(temporary, 0o600);
    await rename(temporary, file);
    await chmod(file, 0o600);
    return { ok: true };
  } catch (error) {
    await rm(temporary, { force: true });
    return { ok: false, error: `cannot write ${file}: ${error instanceof Error ? error.message : String(error)}` };
  }
}
