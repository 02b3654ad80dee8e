import { randomBytes } from "node:crypto";
import { cp, mkdir, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { discoverHooks, isHookEnabled, loadHookHandler, readHookFolder, readHookState } from "@hermes/gateway";
import { EXIT_FAILED, EXIT_OK, hookPaths, type HooksCommandIo } from "./hooks-io.js";

/**
 * `hermes hooks install <folder> [--force]`: checks the folder is a working hook, then copies it to
 * `$HERMES_HOME/hooks/<name>/`. The copy is staged in a dot-folder (which discovery ignores) and renamed into place,
 * so a watching gateway never sees half a hook.
 */
export async function installHook(io: HooksCommandIo, folderArg: string, options: { force: boolean }): Promise<number> {
  const paths = hookPaths(io);
  const source = path.resolve(io.cwd ?? process.cwd(), folderArg);
  const isFolder = await stat(source).then((info) => info.isDirectory(), () => false);
  if (!isFolder) {
    io.stderr.write(`${source} is not a folder.\n`);
    return EXIT_FAILED;
  }
  const candidate = await readHookFolder(source, "operator");
  if (!candidate.ok) {
    io.stderr.write(`${source} is not a valid hook: ${candidate.error}\n`);
    return EXIT_FAILED;
  }
  const handler = await loadHookHandler(candidate.handlerFile);
  if (!handler.ok) {
    io.stderr.write(`${source} is not a valid hook: ${handler.error}\n`);
    return EXIT_FAILED;
  }
  const name = candidate.manifest.name;
  const destination = path.join(paths.operatorDir, name);
  const refusal = await installRefusal(io, source, destination, name, options.force);
  if (refusal !== undefined) {
    io.stderr.write(`${refusal}\n`);
    return EXIT_FAILED;
  }

  await mkdir(paths.operatorDir, { recursive: true });
  const suffix = randomBytes(6).toString("hex");
  const staging = path.join(paths.operatorDir, `.installing-${name}-${suffix}`);
  const replaced = path.join(paths.operatorDir, `.replaced-${name}-${suffix}`);
  const failed = await swapInCopy(source, staging, destination, replaced);
  if (failed !== undefined) {
    io.stderr.write(`Could not install ${source} to ${destination}: ${failed}\n`);
    return EXIT_FAILED;
  }

  io.stdout.write(`Installed hook "${name}" to ${destination}.\n`);
  const bundled = await discoverHooks({ bundledDir: paths.bundledDir, logger: io.logger });
  if (bundled.hooks.some((hook) => hook.manifest.name === name)) io.stdout.write(`It replaces the bundled hook "${name}".\n`);
  if (!isHookEnabled(name, candidate.manifest.enabled, readHookState(paths.stateFile).overrides)) {
    io.stdout.write(`It is disabled; turn it on with: hermes hooks enable ${name}\n`);
  }
  return EXIT_OK;
}

/** Copies to `staging`, then renames it over `destination`; the previous copy is restored if that fails. */
async function swapInCopy(source: string, staging: string, destination: string, replaced: string): Promise<string | undefined> {
  try {
    await cp(source, staging, { recursive: true, errorOnExist: true, force: false });
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    return messageOf(error);
  }
  const existed = await stat(destination).then(() => true, () => false);
  try {
    if (existed) await rename(destination, replaced);
    await rename(staging, destination);
  } catch (error) {
    if (existed) await rename(replaced, destination).catch(() => undefined);
    await rm(staging, { recursive: true, force: true });
    return messageOf(error);
  }
  await rm(replaced, { recursive: true, force: true });
  return undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function installRefusal(io: HooksCommandIo, source: string, destination: string, name: string, force: boolean): Promise<string | undefined> {
  if (isSameOrInside(source, destination) || isSameOrInside(destination, source)) {
    return `Cannot install ${source} onto itself (${destination}).`;
  }
  const installed = await discoverHooks({ operatorDir: hookPaths(io).operatorDir, logger: io.logger });
  const elsewhere = installed.hooks.find((hook) => hook.manifest.name === name && path.resolve(hook.folder) !== path.resolve(destination));
  if (elsewhere) return `A hook named "${name}" is already installed in ${elsewhere.folder}; remove that folder first.`;
  const exists = await stat(destination).then(() => true, () => false);
  if (exists && !force) return `A hook is already installed at ${destination}; use --force to replace it.`;
  return undefined;
}

function isSameOrInside(inner: string, outer: string): boolean {
  const relative = path.relative(path.resolve(outer), path.resolve(inner));
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}
