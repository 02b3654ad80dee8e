import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { silentLogger } from "../observability/logger.js";
import type { RunCaller, ToolContext } from "../tools/types.js";

/** Test helpers: real skill folders in a temp directory. Not used by production code. */

export async function makeTempDir(): Promise<string> {
  return fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "hermes-")));
}

export interface SkillSpec {
  description?: string;
  extraFrontmatter?: string;
  body?: string;
  files?: Record<string, string | Uint8Array>;
}

export function skillMarkdown(name: string, spec: SkillSpec = {}): string {
  const lines = ["---", `name: ${name}`, `description: ${spec.description ?? `Does ${name} things.`}`];
  if (spec.extraFrontmatter !== undefined) lines.push(spec.extraFrontmatter);
  lines.push("---", "", spec.body ?? `# ${name}\n\nFollow these steps.\n`);
  return lines.join("\n");
}

export async function writeSkill(root: string, name: string, spec: SkillSpec = {}): Promise<string> {
  const dir = path.join(root, name);
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(path.join(dir, "SKILL.md"), skillMarkdown(name, spec));
  for (const [relative, content] of Object.entries(spec.files ?? {})) {
    await fs.mkdir(path.dirname(path.join(dir, relative)), { recursive: true });
    await fs.writeFile(path.join(dir, relative), content);
  }
  return dir;
}

export function toolContext(options: { sessionId?: string; platform?: string } = {}): ToolContext {
  const caller: RunCaller | undefined = options.platform === undefined ? undefined : { platform: options.platform };
  return {
    signal: new AbortController().signal,
    toolCallId: "call-1",
    sessionId: options.sessionId ?? "session-1",
    logger: silentLogger,
    ...(caller === undefined ? {} : { caller }),
  };
}
