import { randomBytes } from "node:crypto";

/** Capital letters and digits without the look-alikes 0/O and 1/I/L, so a code copied by hand survives the trip. */
export const PAIRING_CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";
export const PAIRING_CODE_LENGTH = 8;

/** Source of cryptographically strong random bytes (`crypto.randomBytes` outside tests). */
export type RandomBytes = (bytes: number) => Buffer;

// Bytes at or above the largest multiple of the alphabet size are discarded: `byte % 31` over all 256 values would
// make the first few letters more likely than the rest.
const UNBIASED_BYTE_LIMIT = 256 - (256 % PAIRING_CODE_ALPHABET.length);
const MAX_DRAWS = 64;

export function generatePairingCode(random: RandomBytes = randomBytes): string {
  let code = "";
  for (let draw = 0; draw < MAX_DRAWS && code.length < PAIRING_CODE_LENGTH; draw++) {
    for (const byte of random(PAIRING_CODE_LENGTH * 2)) {
      if (byte >= UNBIASED_BYTE_LIMIT) continue;
      code += PAIRING_CODE_ALPHABET.charAt(byte % PAIRING_CODE_ALPHABET.length);
      if (code.length === PAIRING_CODE_LENGTH) break;
    }
  }
  if (code.length < PAIRING_CODE_LENGTH) throw new Error("the random source keeps returning unusable bytes");
  return code;
}

/**
 * The code an operator typed, in canonical form: case, spaces and dashes are forgiven. Undefined when it cannot be a
 * pairing code at all (wrong length or a character outside the alphabet).
 */
export function normalizePairingCode(typed: string): string | undefined {
  const code = typed.replace(/[\s\-\u2010-\u2015]/g, "").toUpperCase();
  if (code.length !== PAIRING_CODE_LENGTH) return undefined;
  for (const character of code) {
    if (!PAIRING_CODE_ALPHABET.includes(character)) return undefined;
  }
  return code;
}
