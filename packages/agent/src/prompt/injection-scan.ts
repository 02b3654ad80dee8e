/**
 * Heuristic scan of operator-supplied context files (HERMES.md, AGENTS.md, …) for text that tries to take
 * over the agent. Such files are often copied from untrusted repositories, so the scan looks for phrases
 * that have no business in project instructions.
 *
 * Patterns are tuned against false positives on ordinary prose:
 * - "you are now …" / "from now on you are …" fire only when followed by a persona (an AI, assistant, bot,
 *   "called X", "unrestricted", "in developer mode"), so "you are now ready to deploy" stays quiet.
 * - "pretend to be" fires only as an instruction to the reader (sentence start, "please", "you should"),
 *   so "mocks pretend to be the real server" stays quiet.
 * - "forget everything" fires at the end of a clause or before "above/before/you/your/previous…",
 *   not in "forget everything about the old API".
 * - "do not tell the user" needs a hiding continuation ("about this", "that you", "anything"), so
 *   "never tell the user their password" stays quiet.
 * - Exfiltration ignores negated forms ("never reveal your system prompt") and "send … API key" needs a
 *   destination (to me/us, a URL, an e-mail address or a domain), so API docs like "send the API key in
 *   the header" stay quiet.
 * - `[system]` fires when upper-case or followed by text on the same line; a lone lower-case `[system]`
 *   line is a TOML/INI section header.
 */

export type ScanFindingKind =
  | "instruction_override"
  | "role_hijack"
  | "deception"
  | "prompt_exfiltration"
  | "invisible_characters"
  | "fake_system_tag";

export interface ScanFinding {
  kind: ScanFindingKind;
  excerpt: string;
}

export interface ScanResult {
  /** The content with invisible characters removed. */
  cleaned: string;
  findings: ScanFinding[];
}

const MAX_EXCERPT_CHARS = 80;
// A hostile file could repeat one phrase thousands of times; a few findings are enough to decide and to log.
const MAX_FINDINGS = 20;

// Zero-width, word joiner and invisible operators, BOM, bidi embeddings/overrides/isolates, tag characters, soft hyphen.
const INVISIBLE_CHARACTERS = /[\u200B-\u200D\u2060-\u2064\uFEFF\u202A-\u202E\u2066-\u2069\u00AD\u{E0000}-\u{E007F}]/gu;

const NEGATION = String.raw`(?<!\b(?:never|not|don't|dont|do\s+not|must\s+not|mustn't|cannot|can't|won't)\s+)`;

const PERSONA_TAIL = String.raw`(?:` +
  String.raw`(?:(?:an?|the|my|your)\s+(?:[\w'-]+\s+){0,3}?)?(?:AI|assistant|chatbot|bot|language\s+model|LLM|persona|character|DAN)\b` +
  String.raw`|(?:called|named|known\s+as)\s+\S` +
  String.raw`|no\s+longer\s+(?:bound|restricted|limited|an?\s+(?:AI|assistant))` +
  String.raw`|(?:unrestricted|unfiltered|uncensored|jailbroken)\b` +
  String.raw`|free\s+(?:from|of)\s+(?:all\s+|any\s+|your\s+)?(?:restrictions|rules|guidelines|limits|limitations|filters)` +
  String.raw`|in\s+(?:developer|god|jailbreak|DAN|unrestricted)\s+mode` +
  String.raw`)`;

const PATTERNS: ReadonlyArray<{ kind: ScanFindingKind; pattern: RegExp }> = [
  {
    kind: "instruction_override",
    pattern: /\bignore\s+(?:(?:all|any|the|of|your|my)\s+){0,3}(?:previous|prior|above|earlier|preceding)\s+(?:instructions|directions|prompts?|rules)\b/gi,
  },
  {
    kind: "instruction_override",
    pattern: /\bdisregard\s+(?:all|any|your)\s+(?:of\s+)?(?:(?:the|your)\s+)?(?:(?:previous|prior|above|earlier|system)\s+)?(?:instructions|rules|guidelines)\b/gi,
  },
  { kind: "instruction_override", pattern: /\bsystem\s+prompt\s+override\b/gi },
  { kind: "instruction_override", pattern: /\bnew\s+instructions\s*:/gi },
  {
    kind: "instruction_override",
    pattern: /\bforget\s+everything(?=\s*(?:[.!:;,]|$|(?:above|before|earlier|previous|prior|you|your|that|i|we)\b|the\s+(?:system|previous|prior|above)\b))/gim,
  },
  { kind: "role_hijack", pattern: new RegExp(String.raw`\byou\s+are\s+now\s+` + PERSONA_TAIL, "gi") },
  { kind: "role_hijack", pattern: new RegExp(String.raw`\bfrom\s+now\s+on,?\s+you\s+are\s+` + PERSONA_TAIL, "gi") },
  {
    kind: "role_hijack",
    pattern: /(?:^|[.!?:;]\s*|\b(?:please|now|you\s+(?:must|should|will|shall|need\s+to|have\s+to))\s+)pretend\s+(?:to\s+be|you\s+are|that\s+you\s+are)\b/gim,
  },
  {
    kind: "role_hijack",
    pattern: /\bact\s+as\s+(?:if|though)\s+you\s+(?:have|had)\s+no\s+(?:restrictions|rules|limits|limitations|guidelines|filters)\b/gi,
  },
  {
    kind: "deception",
    pattern: /\b(?:do\s+not|don't|never)\s+(?:tell|inform|notify)\s+the\s+user\s+(?:about\s+(?:this|these|it|that|what|any)|that\s+you|what\s+you|you\b|this\b|anything\b|any\s+of)/gi,
  },
  { kind: "deception", pattern: /\bwithout\s+(?:telling|informing)\s+the\s+user\b/gi },
  { kind: "deception", pattern: /\b(?:hide|conceal)\s+(?:this|it|that|these|(?:the|your)\s+[\w-]+)\s+from\s+the\s+user\b/gi },
  { kind: "deception", pattern: /\bkeep\s+(?:this|it|that)\s+(?:a\s+)?secret\s+from\s+the\s+user\b/gi },
  {
    kind: "prompt_exfiltration",
    pattern: new RegExp(
      NEGATION +
        String.raw`\b(?:reveal|print|show|output|repeat|display|leak|dump)\s+(?:me\s+)?your\s+(?:(?:full|entire|complete|original|initial|hidden)\s+)?(?:system\s+(?:prompt|message)|initial\s+instructions|hidden\s+instructions)\b`,
      "gi",
    ),
  },
  {
    kind: "prompt_exfiltration",
    pattern: new RegExp(
      NEGATION +
        String.raw`\b(?:send|post|upload|e-?mail|forward|transmit|exfiltrate)\s+(?:\S+\s+){0,6}?(?:api[\s_-]?keys?|secret\s+keys?|access\s+tokens?|credentials|passwords?)\s+(?:\S+\s+){0,3}?to\s+(?:me\b|us\b|https?:\/\/|\S+@\S+|[\w-]+(?:\.[\w-]+)+)`,
      "gi",
    ),
  },
  { kind: "fake_system_tag", pattern: /<\s*\/?\s*system(?:[\s_-]*(?:prompt|message|reminder))?\s*>/gi },
  { kind: "fake_system_tag", pattern: /\[\s*SYSTEM\s*\]|\[\s*system\s*\](?=[ \t]*\S)/g },
  { kind: "fake_system_tag", pattern: /<\|\s*(?:im_start|im_end|system|endoftext)\s*\|>/gi },
];

export function scanContextContent(content: string): ScanResult {
  const findings: ScanFinding[] = [];
  const invisible = collectInvisibleCharacters(content);
  if (invisible.count > 0) findings.push({ kind: "invisible_characters", excerpt: describeInvisible(invisible) });

  const cleaned = invisible.count > 0 ? content.replace(INVISIBLE_CHARACTERS, "") : content;
  // Full-width and other compatibility forms would otherwise slip past the ASCII patterns.
  const searchable = cleaned.normalize("NFKC");
  const seen = new Set<string>();
  for (const { kind, pattern } of PATTERNS) {
    for (const match of searchable.matchAll(pattern)) {
      if (findings.length >= MAX_FINDINGS) return { cleaned, findings };
      const excerpt = toExcerpt(match[0]);
      const key = `${kind}\u0000${excerpt.toLowerCase()}`;
      if (seen.has(key)) continue;
      seen.add(key);
      findings.push({ kind, excerpt });
    }
  }
  return { cleaned, findings };
}

/** The text without the characters the scan reports as invisible_characters. */
export function removeInvisibleCharacters(text: string): string {
  return text.replace(INVISIBLE_CHARACTERS, "");
}

function toExcerpt(text: string): string {
  const collapsed = text.replace(/^[\s.!?:;]+/, "").replace(/\s+/g, " ").trim();
  if (collapsed.length <= MAX_EXCERPT_CHARS) return collapsed;
  return collapsed.slice(0, MAX_EXCERPT_CHARS - 1) + "…";
}

function collectInvisibleCharacters(content: string): { count: number; codePoints: Set<number> } {
  const codePoints = new Set<number>();
  let count = 0;
  for (const match of content.matchAll(INVISIBLE_CHARACTERS)) {
    count += 1;
    const codePoint = match[0].codePointAt(0);
    if (codePoint !== undefined) codePoints.add(codePoint);
  }
  return { count, codePoints };
}

function describeInvisible({ count, codePoints }: { count: number; codePoints: Set<number> }): string {
  const names = [...codePoints]
    .sort((a, b) => a - b)
    .map((cp) => "U+" + cp.toString(16).toUpperCase().padStart(4, "0"));
  const noun = count === 1 ? "invisible character" : "invisible characters";
  let excerpt = `${count} ${noun} (${names.join(", ")})`;
  if (excerpt.length > MAX_EXCERPT_CHARS) excerpt = excerpt.slice(0, MAX_EXCERPT_CHARS - 2) + "…)";
  return excerpt;
}
