import { createHash, timingSafeEqual } from "node:crypto";

/**
 * Whether an `Authorization` header carries `Bearer <expected>`. Both sides are hashed first so the comparison takes
 * the same time whatever the length or content of the guess.
 */
export function bearerMatches(authorization: string | undefined, expected: string): boolean {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? "");
  const given = match?.[1];
  if (given === undefined) return false;
  return timingSafeEqual(digest(given), digest(expected));
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}
