import { readFile } from "node:fs/promises";
import { parseEnv } from "node:util";
import type { ConfigIssue } from "./errors.js";
import { describeReadFailure, isMissingFile } from "./file-errors.js";

export type DotEnvResult = { ok: true; vars: Readonly<Record<string, string>> } | { ok: false; issue: ConfigIssue };

/** Reads a `.env` file; a missing file is simply no variables. */
export async function readDotEnvFile(file: string): Promise<DotEnvResult> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if (isMissingFile(error)) return { ok: true, vars: {} };
    return { ok: false, issue: { setting: file, message: describeReadFailure(error) } };
  }
  const vars: Record<string, string> = {};
  // Editors on Windows like to start files with a byte-order mark, which would otherwise glue onto the first name.
  for (const [name, value] of Object.entries(parseEnv(text.replace(/^\uFEFF/, "")))) {
    if (value !== undefined) vars[name] = value;
  }
  return { ok: true, vars };
}
