import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { hashPairingCode, pairingCodeMatches } from "./code-hash.js";

describe("pairing code hashing", () => {
  it("stores neither the code nor anything that contains it", async () => {
    const hashed = await hashPairingCode("ABCD2345", randomBytes(16));
    expect(hashed.codeHash).toMatch(/^[0-9a-f]{64}$/);
    expect(hashed.salt).toMatch(/^[0-9a-f]{32}$/);
    expect(JSON.stringify(hashed)).not.toContain("ABCD2345");
    expect(JSON.stringify(hashed)).not.toContain(Buffer.from("ABCD2345").toString("hex"));
  });

  it("gives the same code a different hash under a different salt", async () => {
    const first = await hashPairingCode("ABCD2345", randomBytes(16));
    const second = await hashPairingCode("ABCD2345", randomBytes(16));
    expect(first.salt).not.toBe(second.salt);
    expect(first.codeHash).not.toBe(second.codeHash);
  });

  it("matches only the code that was hashed", async () => {
    const hashed = await hashPairingCode("ABCD2345", randomBytes(16));
    expect(await pairingCodeMatches("ABCD2345", hashed)).toBe(true);
    expect(await pairingCodeMatches("ABCD2346", hashed)).toBe(false);
    expect(await pairingCodeMatches("abcd2345", hashed)).toBe(false);
  });

  it("never matches a corrupt stored hash", async () => {
    const hashed = await hashPairingCode("ABCD2345", randomBytes(16));
    expect(await pairingCodeMatches("ABCD2345", { ...hashed, codeHash: hashed.codeHash.slice(0, 40) })).toBe(false);
    expect(await pairingCodeMatches("ABCD2345", { ...hashed, codeHash: "not hex" })).toBe(false);
    expect(await pairingCodeMatches("ABCD2345", { ...hashed, salt: "" })).toBe(false);
  });
});
