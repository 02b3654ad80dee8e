import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Logger } from "@hermes/agent";

// Shared by the hook tests: real hook folders in temporary directories, and a logger that remembers what it was told.

export interface LogRecord {
  level: "debug" | "info" | "warn" | "error";
  message: string;
  fields: Record<string, unknown>;
}

export interface RecordingLogger extends Logger {
  records: LogRecord[];
}

export function recordingLogger(records: LogRecord[] = []): RecordingLogger {
  const at =
    (level: LogRecord["level"]) =>
    (message: string, fields?: Record<string, unknown>): void => {
      records.push({ level, message, fields: fields ?? {} });
    };
  return { records, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error"), child: () => recordingLogger(records) };
}

export interface HookFolderSpec {
  /** HOOK.yaml text; default: a manifest for `name` subscribed to `events`. */
  manifest?: string;
  events?: string[];
  extraManifest?: string;
  /** File name and text of the handler. */
  handler?: { file: string; code: string };
  packageJson?: unknown;
  /** More files to put in the folder. */
  files?: Record<string, string>;
}

/** Writes `<root>/<folder>/` as a hook and returns its path. */
export async function writeHookFolder(root: string, folder: string, spec: HookFolderSpec = {}): Promise<string> {
  const dir = path.join(root, folder);
  await mkdir(dir, { recursive: true });
  const events = spec.events ?? ["message:received"];
  const manifest =
    spec.manifest ??
    [`name: ${folder}`, `description: test hook ${folder}`, `events:`, ...events.map((event) => `  - "${event}"`), spec.extraManifest ?? ""].join("\n");
  await writeFile(path.join(dir, "HOOK.yaml"), manifest);
  const handler = spec.handler ?? { file: "handler.mjs", code: "export default async () => undefined;\n" };
  await writeFile(path.join(dir, handler.file), handler.code);
  if (spec.packageJson !== undefined) await writeFile(path.join(dir, "package.json"), JSON.stringify(spec.packageJson));
  for (const [name, text] of Object.entries(spec.files ?? {})) await writeFile(path.join(dir, name), text);
  return dir;
}

/** An ESM handler that appends `<label> <event.type>` to a shared file, so a test can see who ran and in which order. */
export function recordingHandler(traceFile: string, label: string, returns = "undefined"): { file: string; code: string } {
  const code = [
    `import { appendFileSync } from "node:fs";`,
    `export default async (event) => {`,
    `  appendFileSync(${JSON.stringify(traceFile)}, ${JSON.stringify(label)} + " " + event.type + "\\n");`,
    `  return ${returns};`,
    `};`,
  ].join("\n");
  return { file: "handler.mjs", code };
}

export async function makeTempDir(): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), "hermes-"));
}

export async function removeDir(dir: string | undefined): Promise<void> {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
}
