import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { errorCode } from "./fs-errors.js";

export interface AtomicWriteOptions {
  /** Distinguishes concurrent temp files; injectable so tests can predict the temp name. */
  tempSuffix?: () => string;
}

/**
 * Writes through a temp file in the same folder and renames it over the target, so readers never see a
 * half-written file. An existing file keeps its permission bits. Throws the underlying fs error.
 */
export async function writeFileAtomically(
  target: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const suffix = (options.tempSuffix ?? defaultSuffix)();
  const temp = path.join(path.dirname(target), `.${path.basename(target)}.${suffix}.tmp`);
  const existingMode = await modeOf(target);
  const handle = await fs.open(temp, "wx", existingMode ?? 0o666);
  try {
    await handle.writeFile(data);
    // The open mode is filtered by the umask; an explicit chmod keeps the original bits exactly.
    if (existingMode !== undefined) await handle.chmod(existingMode);
    await handle.sync();
    await handle.close();
    await fs.rename(temp, target);
  } catch (error) {
    await handle.close().catch(() => undefined);
    await fs.rm(temp, { force: true });
    throw error;
  }
}

function defaultSuffix(): string {
  return randomBytes(6).toString("hex");
}

async function modeOf(target: string): Promise<number | undefined> {
  try {
    return (await fs.stat(target)).mode & 0o7777;
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
}
