import { promises as fs } from "node:fs";
import path from "node:path";
import { writeFileAtomically } from "../builtin-tools/atomic-write.js";
import { errorCode, fsFailure } from "../builtin-tools/fs-errors.js";
import { formatBytes } from "../builtin-tools/text-file.js";
import { silentLogger, type Logger } from "../observability/logger.js";
import { checkStoredChange, describeRefusal } from "../prompt/stored-text-guard.js";
import { checkSkillName, parseSkillDocument } from "./frontmatter.js";
import { applyFuzzyPatch } from "./fuzzy-patch.js";
import type { SkillCatalog } from "./skill-cache.js";
import { SKILL_FILE_NAME } from "./skill-scan.js";
import { DEFAULT_MAX_SUPPORT_FILE_BYTES, resolveSupportPath } from "./support-files.js";

export const DEFAULT_MAX_SKILL_BYTES = 50 * 1024;

export type SkillAction = "create" | "edit" | "patch" | "delete" | "write_file" | "remove_file";
export type SkillChangeListener = (name: string, action: SkillAction) => void | Promise<void>;
export type SkillChange = { ok: true; message: string; details: Record<string, unknown> } | { ok: false; error: string };

export interface LocalSkillStoreOptions {
  catalog: SkillCatalog;
  maxSkillBytes?: number;
  maxSupportFileBytes?: number;
  onSkillChanged?: SkillChangeListener;
  logger?: Logger;
}

type Located = { ok: true; dir: string } | { ok: false; error: string };
type Screened = { ok: true; text: string } | { ok: false; error: string };

/**
 * The agent's own skills: every change goes to the catalog's local folder, is validated before it is written,
 * is written atomically, and is announced (cache invalidated, listener called). Skills in other roots are read-only.
 */
export class LocalSkillStore {
  private readonly catalog: SkillCatalog;
  private readonly maxSkillBytes: number;
  private readonly maxSupportFileBytes: number;
  private readonly onSkillChanged: SkillChangeListener | undefined;
  private readonly logger: Logger;

  constructor(options: LocalSkillStoreOptions) {
    this.catalog = options.catalog;
    this.maxSkillBytes = options.maxSkillBytes ?? DEFAULT_MAX_SKILL_BYTES;
    this.maxSupportFileBytes = options.maxSupportFileBytes ?? DEFAULT_MAX_SUPPORT_FILE_BYTES;
    this.onSkillChanged = options.onSkillChanged;
    this.logger = options.logger ?? silentLogger;
  }

  /**
   * A name used in any root is refused, not just a local one: a local copy would silently shadow the official skill
   * and the model would be left with two meanings for one name. Operators can still override by hand.
   */
  async create(name: string, requested: string): Promise<SkillChange> {
    const localDir = this.catalog.localSkillsDir;
    if (localDir === undefined) return { ok: false, error: "No folder for new skills is configured." };
    const screened = screenSkillText("the new SKILL.md", "", requested);
    if (!screened.ok) return screened;
    const content = screened.text;
    const invalid = this.checkSkillContent(name, content);
    if (invalid !== undefined) return { ok: false, error: invalid };
    const existing = (await this.catalog.index()).skills.get(name);
    if (existing !== undefined) {
      const whose = existing.source === "official" ? "an official skill" : "one of your skills";
      return {
        ok: false,
        error: `A skill named "${name}" already exists (${whose}). Pick another name, or use edit/patch on your own skill.`,
      };
    }
    const dir = path.join(localDir, name);
    if ((await fs.lstat(dir).catch(() => undefined)) !== undefined) {
      return { ok: false, error: `A folder named "${name}" already exists among your skills but is not a valid skill; edit or delete it.` };
    }
    try {
      await fs.mkdir(localDir, { recursive: true });
      await fs.mkdir(dir);
      await writeFileAtomically(path.join(dir, SKILL_FILE_NAME), content);
    } catch (error) {
      return { ok: false, error: fsFailure(error, `${name}/${SKILL_FILE_NAME}`).content };
    }
    return this.changed(name, "create", `Created skill "${name}".`, { bytes: Buffer.byteLength(content) });
  }

  async edit(name: string, requested: string): Promise<SkillChange> {
    const located = await this.locate(name);
    if (!located.ok) return located;
    const current = await fs.readFile(path.join(located.dir, SKILL_FILE_NAME), "utf8").catch(() => "");
    const screened = screenSkillText("the new SKILL.md", current, requested);
    if (!screened.ok) return screened;
    const content = screened.text;
    const invalid = this.checkSkillContent(name, content);
    if (invalid !== undefined) return { ok: false, error: invalid };
    return this.writeSkillFile(name, located.dir, content, "edit", `Replaced ${name}/${SKILL_FILE_NAME}.`, {});
  }

  async patch(name: string, oldString: string, newString: string): Promise<SkillChange> {
    const located = await this.locate(name);
    if (!located.ok) return located;
    if (oldString === newString) return { ok: false, error: "old_string and new_string are identical; nothing would change." };
    let current: string;
    try {
      current = await fs.readFile(path.join(located.dir, SKILL_FILE_NAME), "utf8");
    } catch (error) {
      return { ok: false, error: `${fsFailure(error, `${name}/${SKILL_FILE_NAME}`).content} Use edit to write it.` };
    }
    const patched = applyFuzzyPatch(current, oldString, newString);
    if (!patched.ok) return { ok: false, error: patched.error };
    const screened = screenSkillText("the patched SKILL.md", current, patched.content);
    if (!screened.ok) return screened;
    const invalid = this.checkSkillContent(name, screened.text);
    if (invalid !== undefined) return { ok: false, error: `The patch was not applied because the result would be invalid: ${invalid}` };
    const how = patched.strategy === "exact" ? "" : ` (matched ${patched.strategy === "whitespace" ? "ignoring whitespace differences" : "by its first and last lines"})`;
    return this.writeSkillFile(name, located.dir, screened.text, "patch", `Patched ${name}/${SKILL_FILE_NAME}${how}.`, {
      strategy: patched.strategy,
    });
  }

  async delete(name: string): Promise<SkillChange> {
    const located = await this.locate(name);
    if (!located.ok) return located;
    try {
      await fs.rm(located.dir, { recursive: true });
    } catch (error) {
      return { ok: false, error: fsFailure(error, name).content };
    }
    this.catalog.invalidate();
    const revealed = (await this.catalog.index()).skills.get(name);
    const note = revealed === undefined ? "" : ` The ${revealed.source} skill of the same name is visible again.`;
    return this.changed(name, "delete", `Deleted skill "${name}".${note}`, {});
  }

  async writeFile(name: string, filePath: string, requested: string): Promise<SkillChange> {
    const located = await this.locate(name);
    if (!located.ok) return located;
    const screened = screenSkillText("file_content", "", requested);
    if (!screened.ok) return screened;
    const content = screened.text;
    const bytes = Buffer.byteLength(content);
    if (bytes > this.maxSupportFileBytes) {
      return { ok: false, error: `file_content is too large (${formatBytes(bytes)}; the limit is ${formatBytes(this.maxSupportFileBytes)}).` };
    }
    if (content.includes("\0")) return { ok: false, error: "file_content contains NUL bytes; only text files can be written." };
    const target = await resolveSupportPath(located.dir, filePath);
    if (!target.ok) return target;
    try {
      await fs.mkdir(path.dirname(target.absolute), { recursive: true });
      await writeFileAtomically(target.absolute, content);
    } catch (error) {
      return { ok: false, error: fsFailure(error, `${name}/${target.relative}`).content };
    }
    return this.changed(name, "write_file", `Wrote ${name}/${target.relative} (${formatBytes(bytes)}).`, { file: target.relative, bytes });
  }

  async removeFile(name: string, filePath: string): Promise<SkillChange> {
    const located = await this.locate(name);
    if (!located.ok) return located;
    const target = await resolveSupportPath(located.dir, filePath);
    if (!target.ok) return target;
    const stats = await fs.lstat(target.absolute).catch(() => undefined);
    if (stats === undefined) return { ok: false, error: `File not found: ${name}/${target.relative}.` };
    if (stats.isDirectory()) return { ok: false, error: `${name}/${target.relative} is a folder; remove its files one by one.` };
    try {
      await fs.rm(target.absolute);
    } catch (error) {
      return { ok: false, error: fsFailure(error, `${name}/${target.relative}`).content };
    }
    return this.changed(name, "remove_file", `Removed ${name}/${target.relative}.`, { file: target.relative });
  }

  /** Only a real folder in the local root can change; anything else gets an error that says what to do instead. */
  private async locate(name: string): Promise<Located> {
    const nameCheck = checkSkillName(name);
    if (!nameCheck.ok) return nameCheck;
    const localDir = this.catalog.localSkillsDir;
    if (localDir !== undefined) {
      const dir = path.join(localDir, name);
      const stats = await fs.lstat(dir).catch((error: unknown) => {
        if (errorCode(error) === undefined) throw error;
        return undefined;
      });
      if (stats?.isDirectory() === true) return { ok: true, dir };
    }
    if ((await this.catalog.index()).skills.has(name)) {
      return {
        ok: false,
        error: `"${name}" is an official skill and cannot be changed. Create your own skill under a different name instead.`,
      };
    }
    return { ok: false, error: `There is no skill named "${name}"; skills_list shows the available skills.` };
  }

  private checkSkillContent(name: string, content: string): string | undefined {
    const nameCheck = checkSkillName(name);
    if (!nameCheck.ok) return nameCheck.error;
    const bytes = Buffer.byteLength(content);
    if (bytes > this.maxSkillBytes) {
      return `SKILL.md is too large (${formatBytes(bytes)}; the limit is ${formatBytes(this.maxSkillBytes)}). Move details into references/ files.`;
    }
    const parsed = parseSkillDocument(content, name);
    if (!parsed.ok) return `invalid SKILL.md: ${parsed.error}.`;
    if (parsed.body.trim() === "") return "invalid SKILL.md: the body after the frontmatter is empty.";
    return undefined;
  }

  private async writeSkillFile(
    name: string,
    dir: string,
    content: string,
    action: SkillAction,
    message: string,
    details: Record<string, unknown>,
  ): Promise<SkillChange> {
    try {
      await writeFileAtomically(path.join(dir, SKILL_FILE_NAME), content);
    } catch (error) {
      return { ok: false, error: fsFailure(error, `${name}/${SKILL_FILE_NAME}`).content };
    }
    return this.changed(name, action, message, { ...details, bytes: Buffer.byteLength(content) });
  }

  private async changed(name: string, action: SkillAction, message: string, details: Record<string, unknown>): Promise<SkillChange> {
    this.catalog.invalidate();
    try {
      await this.onSkillChanged?.(name, action);
    } catch (error) {
      this.logger.warn("onSkillChanged listener failed", { skill: name, action, error: error instanceof Error ? error.message : String(error) });
    }
    return { ok: true, message, details: { name, action, ...details } };
  }
}

/**
 * Skills are shown to the model in later runs, so written text loses its invisible characters and must not carry
 * injected instructions. Only findings the change adds count, so a passage a person wrote by hand can stay.
 */
function screenSkillText(what: string, before: string, after: string): Screened {
  const check = checkStoredChange(before, after);
  return check.ok ? check : { ok: false, error: describeRefusal(what, check) };
}
