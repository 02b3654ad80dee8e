import { describe, expect, it } from "vitest";
import { generatePairingCode, normalizePairingCode, PAIRING_CODE_ALPHABET, PAIRING_CODE_LENGTH } from "./pairing-code.js";

/** Plays back the given bytes, cycling, whatever size is asked for. */
function scriptedRandom(bytes: number[]): (size: number) => Buffer {
  let position = 0;
  return (size) => Buffer.from(Array.from({ length: size }, () => bytes[position++ % bytes.length] ?? 0));
}

describe("pairing code alphabet", () => {
  it("is capital letters and digits without look-alikes", () => {
    expect(PAIRING_CODE_ALPHABET).toMatch(/^[A-Z0-9]+$/);
    for (const lookAlike of ["0", "O", "1", "I", "L"]) expect(PAIRING_CODE_ALPHABET).not.toContain(lookAlike);
    expect(new Set(PAIRING_CODE_ALPHABET).size).toBe(PAIRING_CODE_ALPHABET.length);
    expect(PAIRING_CODE_ALPHABET.length).toBe(31);
  });
});

describe("generatePairingCode", () => {
  it("makes 8 characters from the alphabet, with no separator", () => {
    for (let round = 0; round < 200; round++) {
      const code = generatePairingCode();
      expect(code).toHaveLength(PAIRING_CODE_LENGTH);
      expect(code).toMatch(new RegExp(`^[${PAIRING_CODE_ALPHABET}]{8}$`));
    }
  });

  it("uses every character about equally often", () => {
    const counts = new Map<string, number>();
    const codes = 4000;
    for (let round = 0; round < codes; round++) {
      for (const character of generatePairingCode()) counts.set(character, (counts.get(character) ?? 0) + 1);
    }
    expect(counts.size).toBe(PAIRING_CODE_ALPHABET.length);
    const expected = (codes * PAIRING_CODE_LENGTH) / PAIRING_CODE_ALPHABET.length;
    // About 1032 per character with a standard deviation near 32: 25% either way is far outside chance.
    for (const count of counts.values()) {
      expect(count).toBeGreaterThan(expected * 0.75);
      expect(count).toBeLessThan(expected * 1.25);
    }
  });

  it("rarely repeats a code", () => {
    const codes = new Set(Array.from({ length: 2000 }, () => generatePairingCode()));
    expect(codes.size).toBe(2000);
  });

  it("maps bytes onto the alphabet without favouring its first letters", () => {
    // 248..255 would wrap around onto A..H; they must be skipped, not folded in.
    const code = generatePairingCode(scriptedRandom([248, 255, 0, 1, 30, 31, 62, 247, 250, 2, 3]));
    expect(code).toBe("AB9A" + "A9CD");
  });

  it("treats a random source that never yields a usable byte as a bug", () => {
    expect(() => generatePairingCode(scriptedRandom([255]))).toThrow(/random source/);
  });
});

describe("normalizePairingCode", () => {
  it("forgives case, spaces and dashes", () => {
    expect(normalizePairingCode("abcd-2345")).toBe("ABCD2345");
    expect(normalizePairingCode("  AbCd 23 45 ")).toBe("ABCD2345");
    expect(normalizePairingCode("ab–cd‑23—45")).toBe("ABCD2345");
  });

  it("rejects what cannot be a code", () => {
    expect(normalizePairingCode("ABCD234")).toBeUndefined();
    expect(normalizePairingCode("ABCD23456")).toBeUndefined();
    expect(normalizePairingCode("ABCD2340")).toBeUndefined();
    expect(normalizePairingCode("ABCD_345")).toBeUndefined();
    expect(normalizePairingCode("")).toBeUndefined();
  });
});
