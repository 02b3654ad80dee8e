import { scrypt, timingSafeEqual } from "node:crypto";

export const PAIRING_SALT_BYTES = 16;
const KEY_BYTES = 32;

/** What is stored instead of a code: a scrypt hash and its salt, both hex. */
export interface HashedPairingCode {
  codeHash: string;
  salt: string;
}

export async function hashPairingCode(code: string, salt: Buffer): Promise<HashedPairingCode> {
  const key = await deriveKey(code, salt);
  return { codeHash: key.toString("hex"), salt: salt.toString("hex") };
}

/** Whether `code` is the one hashed into `stored`, compared in constant time. */
export async function pairingCodeMatches(code: string, stored: HashedPairingCode): Promise<boolean> {
  const expected = Buffer.from(stored.codeHash, "hex");
  const salt = Buffer.from(stored.salt, "hex");
  // A corrupt row can never match; it must not be able to throw out of timingSafeEqual either.
  if (expected.length !== KEY_BYTES || salt.length === 0) return false;
  return timingSafeEqual(await deriveKey(code, salt), expected);
}

function deriveKey(code: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(code, salt, KEY_BYTES, (error, key) => (error ? reject(error) : resolve(key)));
  });
}
