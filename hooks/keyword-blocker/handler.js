import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

const KEYWORDS_FILE = fileURLToPath(new URL("./keywords.txt", import.meta.url));

// NFKC folds look-alike forms (full-width letters, ligatures) into plain ones, so they cannot slip past the list.
function normalize(text) {
  return text.normalize("NFKC").toLowerCase();
}

// Read on every message: the file is small, and an edited list applies at once.
async function keywordsFromFile() {
  let text;
  try {
    text = await readFile(KEYWORDS_FILE, "utf8");
  } catch (error) {
    if (error && error.code === "ENOENT") return [];
    throw error;
  }
  return text.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== "" && !line.startsWith("#"));
}

function keywordsFromEnvironment() {
  return (process.env.HERMES_BLOCKED_KEYWORDS ?? "").split(",").map((entry) => entry.trim()).filter((entry) => entry !== "");
}

export default async function keywordBlocker(event) {
  if (event.type !== "message:received" || typeof event.text !== "string") return undefined;
  const keywords = [...(await keywordsFromFile()), ...keywordsFromEnvironment()].map(normalize);
  const text = normalize(event.text);
  // The reason names no keyword: whoever sent the message should not learn the list by probing it.
  if (keywords.some((keyword) => text.includes(keyword))) return { block: true, reason: "The message contains a blocked keyword." };
  return undefined;
}
