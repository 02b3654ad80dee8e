const REDACTED = "[REDACTED]";

// Shorter "secrets" would mask ordinary words all over the text.
const MIN_KNOWN_SECRET_LENGTH = 6;

interface SecretShape {
  pattern: RegExp;
  replacement: string | ((match: string, ...groups: string[]) => string);
}

// A real bearer token almost always carries a digit or is long; this keeps prose such as
// "Bearer authentication" readable.
function maskBearerToken(_match: string, scheme: string, token: string): string {
  const looksLikeToken = /\d/.test(token) || token.length >= 20;
  return looksLikeToken ? `${scheme} ${REDACTED}` : `${scheme} ${token}`;
}

const SECRET_SHAPES: readonly SecretShape[] = [
  { pattern: /\b(Bearer)\s+([A-Za-z0-9._~+/=*-]{8,})/gi, replacement: maskBearerToken },
  // Covers sk-ant-…, sk-proj-… and the half-masked "sk-abc***xyz" that OpenAI echoes back.
  { pattern: /(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_*-]{8,}/g, replacement: REDACTED },
  { pattern: /(?<![A-Za-z0-9])xox[abposr]-[A-Za-z0-9-]{10,}/g, replacement: REDACTED },
  { pattern: /(?<![A-Za-z0-9])xapp-[A-Za-z0-9-]{10,}/g, replacement: REDACTED },
  // No word boundary in front: Telegram URLs glue the token to "bot" (…/bot123456:AA…/sendMessage).
  { pattern: /(?<!\d)\d{6,}:[A-Za-z0-9_-]{30,}/g, replacement: REDACTED },
  { pattern: /(?<![A-Za-z0-9])gh[pousr]_[A-Za-z0-9]{20,}/g, replacement: REDACTED },
  { pattern: /(?<![A-Za-z0-9])github_pat_[A-Za-z0-9_]{20,}/g, replacement: REDACTED },
  { pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/g, replacement: REDACTED },
  // Gemini errors can echo the request URL, which carries the key as ?key=AIza….
  { pattern: /(?<![A-Za-z0-9])AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g, replacement: REDACTED },
  {
    pattern: /\b([A-Za-z0-9_-]*(?:key|token|secret|password))=([A-Za-z0-9+/_.~%-]{16,}={0,2})/gi,
    replacement: (_match, name) => `${name}=${REDACTED}`,
  },
];

function maskKnownSecrets(text: string, knownSecrets: readonly string[]): string {
  const usable = [...new Set(knownSecrets)]
    .filter((secret) => secret.length >= MIN_KNOWN_SECRET_LENGTH)
    // Longest first, so a secret that contains another is masked whole.
    .sort((a, b) => b.length - a.length);
  let masked = text;
  for (const secret of usable) masked = masked.split(secret).join(REDACTED);
  return masked;
}

/**
 * Masks credentials in provider error text before it reaches logs or the chat.
 * Known secrets go first: once a shape-based mask rewrote part of one, it could no longer match exactly.
 */
export function redactSecrets(text: string, knownSecrets: readonly string[] = []): string {
  let masked = maskKnownSecrets(text, knownSecrets);
  for (const { pattern, replacement } of SECRET_SHAPES) {
    masked =
      typeof replacement === "string"
        ? masked.replace(pattern, replacement)
        : masked.replace(pattern, replacement);
  }
  return masked;
}
