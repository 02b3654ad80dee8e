import { statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

const KEYWORDS_FILE = fileURLToPath(new URL("./keywords.txt", import.meta.url));
// Modification times are coarse (a clock tick, up to 2 s on some file systems): a list read this soon after its last
// change may be edited again without its stat changing, so it is not kept.
const SETTLE_MS = 2000;

// NFKC folds look-alike forms (full-width letters, ligatures) into plain ones, so they cannot slip past the list.
function normalize(text) {
  return text.normalize("NFKC").toLowerCase();
}

/** The list as last read, with the stat it was read at; an edited list applies to the very next message. */
let cached;

// A stat per message (synchronous: no error object for a missing file, no thread-pool round trip on the reply's path);
// the file is read again only when its stat changed.
async function keywordsFromFile() {
  const info = statSync(KEYWORDS_FILE, { throwIfNoEntry: false });
  if (info === undefined) return [];
  const stamp = `${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`;
  if (cached?.stamp === stamp) return cached.keywords;
  // Settled is judged at the stat, not after the read: an edit landing while the read is under way is then never
  // kept under the stat taken before it.
  const statedAt = Date.now();
  let text;
  try {
    text = await readFile(KEYWORDS_FILE, "utf8");
  } catch (error) {
    if (error && error.code === "ENOENT") return [];
    throw error;
  }
  const keywords = text.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== "" && !line.startsWith("#")).map(normalize);
  cached = statedAt - Math.max(info.mtimeMs, info.ctimeMs) > SETTLE_MS ? { stamp, keywords } : undefined;
  return keywords;
}

function keywordsFromEnvironment() {
  return (process.env.HERMES_BLOCKED_KEYWORDS ?? "").split(",").map((entry) => entry.trim()).filter((entry) => entry !== "");
}

export default async function keywordBlocker(event) {
  if (event.type !== "message:received" || typeof event.text !== "string") return undefined;
  const keywords = [...(await keywordsFromFile()), ...keywordsFromEnvironment().map(normalize)];
  const text = normalize(event.text);
  // The reason names no keyword: whoever sent the message should not learn the list by probing it.
  if (keywords.some((keyword) => text.includes(keyword))) return { block: true, reason: "The message contains a blocked keyword." };
  return undefined;
}
