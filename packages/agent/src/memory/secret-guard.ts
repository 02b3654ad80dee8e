import { redactSecrets } from "../errors/redact.js";

export type SecretKind = "credential shape" | "labelled credential" | "private key" | "json web token" | "url credentials";

interface SecretPattern {
  kind: SecretKind;
  pattern: RegExp;
}

// A label followed by ":" or "=" and a value; prose such as "prefers a password manager" has no value to leak.
const LABELLED_CREDENTIAL =
  /\b(?:pass(?:word|wd|phrase)?|pwd|api[ _-]?key|secret(?:[ _-]?key)?|client[ _-]?secret|(?:access|auth|refresh|bearer|api)[ _-]?token|access[ _-]?key|private[ _-]?key)\s*[:=]\s*["'`]?[^\s"'`]{3,}/i;

// A bare "token" label is common in model talk ("max token: 4096"), so only a long token-like value counts.
const LABELLED_TOKEN = /\btoken\s*[:=]\s*["'`]?[A-Za-z0-9._~+/=-]{12,}/i;

const SECRET_PATTERNS: readonly SecretPattern[] = [
  { kind: "labelled credential", pattern: LABELLED_CREDENTIAL },
  { kind: "labelled credential", pattern: LABELLED_TOKEN },
  { kind: "private key", pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----/ },
  { kind: "json web token", pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/ },
  // scheme://user:password@host — the user part alone ("ssh://git@host") is not a secret.
  { kind: "url credentials", pattern: /\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:[^\s/@]+@/i },
];

/**
 * Says whether text looks like it carries a credential. Anything the log redactor would mask counts, plus
 * labelled values ("password: hunter2"), private keys, JWTs and credentials inside URLs. Returns the kind only,
 * never the matched text, so the refusal itself cannot leak the secret.
 */
export function detectSecret(text: string): SecretKind | undefined {
  if (redactSecrets(text) !== text) return "credential shape";
  return SECRET_PATTERNS.find(({ pattern }) => pattern.test(text))?.kind;
}
