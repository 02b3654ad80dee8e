import { scanContextContent, type ScanFinding, type ScanFindingKind } from "./injection-scan.js";

/**
 * Memory entries and skills written by the model are loaded into every later system prompt or skill view, so text
 * that tries to take over the agent must not get there through them: one poisoned web page could otherwise turn a
 * single run's injection into a permanent one. Invisible characters are only removed; the other kinds refuse.
 */
export const REFUSED_FINDING_KINDS: ReadonlySet<ScanFindingKind> = new Set<ScanFindingKind>([
  "instruction_override",
  "role_hijack",
  "deception",
  "prompt_exfiltration",
  "fake_system_tag",
]);

export interface StoredTextRefusal {
  ok: false;
  kinds: ScanFindingKind[];
  findings: ScanFinding[];
}

/** `text` is the input with invisible characters removed: what may be stored. */
export type StoredTextCheck = { ok: true; text: string } | StoredTextRefusal;

const MAX_QUOTED_FINDINGS = 3;

export function checkStoredText(text: string): StoredTextCheck {
  const { cleaned, findings } = scanContextContent(text);
  return verdict(cleaned, findings.filter((finding) => REFUSED_FINDING_KINDS.has(finding.kind)));
}

/**
 * Checks a change to stored text: only findings the change adds refuse it, so a passage a person wrote by hand
 * does not block every later correction of the same file.
 */
export function checkStoredChange(before: string, after: string): StoredTextCheck {
  const existing = new Set(scanContextContent(before).findings.map(findingKey));
  const { cleaned, findings } = scanContextContent(after);
  return verdict(cleaned, findings.filter((finding) => REFUSED_FINDING_KINDS.has(finding.kind) && !existing.has(findingKey(finding))));
}

/** An error the model can act on: what was found, that nothing was written, and how to say it instead. */
export function describeRefusal(what: string, refusal: StoredTextRefusal): string {
  const quoted = refusal.findings
    .slice(0, MAX_QUOTED_FINDINGS)
    .map((finding) => JSON.stringify(finding.excerpt))
    .join(", ");
  return (
    `Refused: ${what} contains text that reads like a prompt injection (${refusal.kinds.join(", ")}): ${quoted}. ` +
    `It would be loaded into later prompts, where it could override the assistant's instructions, so nothing was ` +
    `written. State the fact or procedure plainly, without instructions aimed at the assistant, role changes, ` +
    `secrecy towards the user or system tags.`
  );
}

function verdict(cleaned: string, refused: ScanFinding[]): StoredTextCheck {
  if (refused.length === 0) return { ok: true, text: cleaned };
  return { ok: false, kinds: [...new Set(refused.map((finding) => finding.kind))], findings: refused };
}

function findingKey(finding: ScanFinding): string {
  return `${finding.kind}\u0000${finding.excerpt.toLowerCase()}`;
}
