import path from "node:path";
import { fileVersion } from "./handler-module.js";
import { loadHookHandler, type HandlerLoad } from "./load-hook.js";

/**
 * Loads each handler file once and keeps it while the file (and its folder's package.json, which decides the
 * module format) is unchanged: re-importing on every reload would run the module's top-level code again and, for
 * ESM and TypeScript, leave one more copy in memory each time.
 */
export class HandlerCache {
  private readonly entries = new Map<string, { version: string; load: HandlerLoad }>();

  async get(handlerFile: string): Promise<HandlerLoad> {
    const version = await versionOf(handlerFile);
    if (version === undefined) {
      this.entries.delete(handlerFile);
      return { ok: false, error: `${path.basename(handlerFile)} disappeared` };
    }
    const cached = this.entries.get(handlerFile);
    if (cached && cached.version === version) return cached.load;
    const load = await loadHookHandler(handlerFile);
    this.entries.set(handlerFile, { version, load });
    return load;
  }

  /** Forgets handlers whose hooks are gone. */
  retain(handlerFiles: ReadonlySet<string>): void {
    for (const file of this.entries.keys()) if (!handlerFiles.has(file)) this.entries.delete(file);
  }
}

async function versionOf(handlerFile: string): Promise<string | undefined> {
  const handler = await fileVersion(handlerFile).catch(() => undefined);
  if (handler === undefined) return undefined;
  const scope = await fileVersion(path.join(path.dirname(handlerFile), "package.json")).catch(() => "none");
  return `${handler}/${scope}`;
}
