import type { ConfigIssue } from "./errors.js";
import { isSecretSetting, type SettingName } from "./settings.js";

/** A setting's text as found, with the file it came from (absent for the process environment). */
export interface RawSetting {
  readonly text: string;
  readonly origin?: string;
}

export interface IntegerRange {
  readonly min: number;
  readonly max?: number;
}

const BOOLEAN_WORDS: Readonly<Record<string, boolean>> = {
  true: true,
  false: false,
  "1": true,
  "0": false,
  yes: true,
  no: false,
  on: true,
  off: false,
};

// Long values (a pasted prompt, say) would drown the message they are quoted in.
const MAX_QUOTED_LENGTH = 80;

/**
 * Reads typed settings out of raw text, collecting every problem instead of stopping at the first,
 * so an operator sees all of them in one start-up attempt.
 */
export class SettingReader {
  readonly issues: ConfigIssue[] = [];
  readonly warnings: string[] = [];

  constructor(private readonly values: ReadonlyMap<string, RawSetting>) {}

  has(name: SettingName): boolean {
    return this.values.has(name);
  }

  text(name: SettingName): string | undefined {
    return this.values.get(name)?.text;
  }

  fail(setting: string, message: string): void {
    this.issues.push({ setting, message });
  }

  warn(message: string): void {
    this.warnings.push(message);
  }

  /** Records that the value does not meet `expectation`, quoting it unless it is a secret. */
  reject(name: SettingName, expectation: string, options: { quoteValue?: boolean } = {}): void {
    this.fail(name, `${expectation}${this.describeValue(name, options.quoteValue ?? true)}`);
  }

  integer(name: SettingName, range: IntegerRange): number | undefined {
    const text = this.text(name);
    if (text === undefined) return undefined;
    const value = /^[0-9]+$/.test(text) ? Number(text) : Number.NaN;
    const inRange = value >= range.min && (range.max === undefined || value <= range.max);
    if (inRange) return value;
    const expectation =
      range.max === undefined
        ? `must be an integer of at least ${range.min}`
        : `must be an integer from ${range.min} to ${range.max}`;
    this.reject(name, expectation);
    return undefined;
  }

  boolean(name: SettingName): boolean | undefined {
    const text = this.text(name);
    if (text === undefined) return undefined;
    const value = BOOLEAN_WORDS[text.toLowerCase()];
    if (value === undefined) this.reject(name, "must be true or false (1/0, yes/no and on/off also work)");
    return value;
  }

  choice<T extends string>(name: SettingName, choices: readonly T[]): T | undefined {
    const text = this.text(name)?.toLowerCase();
    if (text === undefined) return undefined;
    const match = choices.find((choice) => choice === text);
    if (match === undefined) this.reject(name, `must be one of ${choices.join(", ")}`);
    return match;
  }

  /** An absolute URL whose scheme is one of `protocols` (written like "https:"). */
  url(name: SettingName, protocols: readonly string[] = ["http:", "https:"]): URL | undefined {
    const text = this.text(name);
    if (text === undefined) return undefined;
    const url = URL.canParse(text) ? new URL(text) : undefined;
    if (url && protocols.includes(url.protocol)) return url;
    const schemes = protocols.map((protocol) => `${protocol}//`);
    const list = schemes.length === 1 ? schemes[0] : `${schemes.slice(0, -1).join(", ")} or ${schemes.at(-1)}`;
    // "an http:// URL" but "a redis:// URL".
    this.reject(name, `must be ${/^[aeiouh]/.test(list ?? "") ? "an" : "a"} ${list} URL`);
    return undefined;
  }

  /** The URL as the operator wrote it, once it is known to be a valid http(s) URL. */
  httpUrl(name: SettingName): string | undefined {
    return this.url(name) ? this.text(name) : undefined;
  }

  private describeValue(name: SettingName, quoteValue: boolean): string {
    const raw = this.values.get(name);
    if (!raw) return "";
    const where = raw.origin === undefined ? "" : ` in ${raw.origin}`;
    if (!quoteValue || isSecretSetting(name)) return where === "" ? "" : ` (set${where})`;
    const shown = raw.text.length > MAX_QUOTED_LENGTH ? `${raw.text.slice(0, MAX_QUOTED_LENGTH)}…` : raw.text;
    return ` (got ${JSON.stringify(shown)}${where})`;
  }
}
