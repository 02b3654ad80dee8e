/**
 * Agent-made skills are shared by everyone who talks to the bot, so a skill must never carry what one person said
 * about themselves. This finds personal data in skill text: e-mail addresses and phone numbers anywhere, plus the
 * names, platform ids and memory entries of the conversation the skill came from.
 */

/** What the conversation revealed about the people in it. */
export interface KnownPersonalData {
  /** Display names of the people who wrote in the conversation. */
  names?: readonly string[];
  /** Platform user ids (and chat ids) seen in the conversation. */
  ids?: readonly string[];
  /** The text of the memory entries of the conversation's scope. */
  memoryEntries?: readonly string[];
}

/** Everything several sources know, in one. */
export function mergePersonalData(...parts: readonly KnownPersonalData[]): KnownPersonalData {
  return {
    names: parts.flatMap((part) => part.names ?? []),
    ids: parts.flatMap((part) => part.ids ?? []),
    memoryEntries: parts.flatMap((part) => part.memoryEntries ?? []),
  };
}

export type PersonalDataKind = "email" | "phone" | "id" | "name" | "memory_entry";

export interface PersonalDataFinding {
  kind: PersonalDataKind;
  /** The offending text, for logs; never shown to other people. */
  match: string;
}

const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}/u;
// A run of digits with the separators phone numbers are written with: "+44 20 7946 0958", "(415) 555-0100".
const PHONE_CANDIDATE = /(?<![\p{L}\p{N}.])\+?\(?\d[\d\s().-]{7,}\d(?![\p{N}])/gu;
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}/;
const MIN_ID_CHARS = 4;
const MIN_NAME_CHARS = 3;
const MIN_ENTRY_CHARS = 12;
/** Consecutive words of a memory entry that, found in a skill, show the entry was copied in. */
const ENTRY_SHINGLE_WORDS = 6;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function looksLikePhone(candidate: string): boolean {
  const text = candidate.trim();
  const digits = text.replace(/\D/g, "");
  if (digits.length < 9 || digits.length > 15) return false;
  if (IPV4.test(text) || ISO_DATE.test(text)) return false;
  // A bare digit run is a phone number only in the shapes numbers are dialled (a mobile like 13800138000).
  if (/^\d+$/.test(text)) return /^1[3-9]\d{9}$/.test(text) || /^0\d{9,10}$/.test(text);
  return text.startsWith("+") || text.startsWith("(") || /\d[\s.-]\d/.test(text);
}

function findPhone(text: string): string | undefined {
  for (const match of text.matchAll(PHONE_CANDIDATE)) {
    if (looksLikePhone(match[0])) return match[0].trim();
  }
  return undefined;
}

function wordPattern(word: string, flags: string): RegExp {
  return new RegExp(`(?<![\\p{L}\\p{N}_])${escapeRegExp(word)}(?![\\p{L}\\p{N}_])`, flags);
}

// Scripts written without spaces have no word boundaries, and their names are often two characters long.
const UNSPACED_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/u;

function findName(text: string, names: readonly string[]): string | undefined {
  for (const name of names) {
    const full = name.trim();
    if (UNSPACED_SCRIPT.test(full)) {
      if (full.length >= 2 && text.includes(full)) return full;
      continue;
    }
    if (full.length < MIN_NAME_CHARS) continue;
    if (wordPattern(full, "iu").test(text)) return full;
    // Parts of a longer name count only as written (capitalised), so "Will Smith" does not flag the word "will".
    for (const part of full.split(/\s+/)) {
      if (part !== full && part.length > MIN_NAME_CHARS && wordPattern(part, "u").test(text)) return part;
    }
  }
  return undefined;
}

function findId(text: string, ids: readonly string[]): string | undefined {
  return ids.map((id) => id.trim()).find((id) => id.length >= MIN_ID_CHARS && wordPattern(id, "u").test(text));
}

function normalized(text: string): string {
  return text.toLowerCase().replace(/\s+/g, " ").trim();
}

function findMemoryEntry(text: string, entries: readonly string[]): string | undefined {
  const haystack = normalized(text);
  for (const entry of entries) {
    const needle = normalized(entry);
    if (needle.length < MIN_ENTRY_CHARS) continue;
    if (haystack.includes(needle)) return entry;
    const words = needle.split(" ");
    for (let start = 0; start + ENTRY_SHINGLE_WORDS <= words.length; start += 1) {
      const shingle = words.slice(start, start + ENTRY_SHINGLE_WORDS).join(" ");
      if (shingle.length >= MIN_ENTRY_CHARS && haystack.includes(shingle)) return entry;
    }
  }
  return undefined;
}

/** The first piece of personal data in `text`, or undefined when there is none. */
export function detectPersonalData(text: string, known: KnownPersonalData = {}): PersonalDataFinding | undefined {
  const email = EMAIL.exec(text)?.[0];
  if (email !== undefined) return { kind: "email", match: email };
  const phone = findPhone(text);
  if (phone !== undefined) return { kind: "phone", match: phone };
  const id = findId(text, known.ids ?? []);
  if (id !== undefined) return { kind: "id", match: id };
  const name = findName(text, known.names ?? []);
  if (name !== undefined) return { kind: "name", match: name };
  const entry = findMemoryEntry(text, known.memoryEntries ?? []);
  if (entry !== undefined) return { kind: "memory_entry", match: entry };
  return undefined;
}

const KIND_WORDS: Record<PersonalDataKind, string> = {
  email: "an e-mail address",
  phone: "a phone number",
  id: "a user id from this conversation",
  name: "the name of a person in this conversation",
  memory_entry: "text from what memory keeps about a person",
};

/** The tool error the model gets: what was found (by kind, not by value) and what to do instead. */
export function personalDataRefusal(finding: PersonalDataFinding): string {
  return (
    `Refused: the skill contains ${KIND_WORDS[finding.kind]}. Skills are shared with everyone who uses this bot, so ` +
    "they must not carry personal data. Generalise it: describe the procedure without names, ids, contact details " +
    "or facts about a particular person (use placeholders such as <name> or <email>), then try again."
  );
}
