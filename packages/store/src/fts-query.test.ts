import { describe, expect, it } from "vitest";
import { ftsMatchExpression, ftsTerms, ownedMatchExpression, rankingTerms, searchOwnerToken } from "./fts-query.js";

describe("ftsTerms", () => {
  it("quotes every word so FTS5 syntax becomes plain text", () => {
    expect(ftsTerms('deploy NEAR(prod "staging" -rollback col:x a*')).toEqual([
      '"deploy"',
      '"NEAR(prod"',
      '"""staging"""',
      '"-rollback"',
      '"col:x"',
      '"a*"',
    ]);
  });

  it("drops words without letters or digits, duplicates and control characters", () => {
    expect(ftsTerms('* - " ( ) ^ 🎉 AND')).toEqual(['"AND"']);
    expect(ftsTerms("zebra zebra")).toEqual(['"zebra"']);
    expect(ftsTerms("a\u0000b")).toEqual(['"a"', '"b"']);
    expect(ftsTerms("   ")).toEqual([]);
  });

  it("keeps unicode words and caps the number of terms", () => {
    expect(ftsTerms("Crème brûlée 東京")).toEqual(['"Crème"', '"brûlée"', '"東京"']);
    const many = Array.from({ length: 40 }, (_, index) => `word${index}`).join(" ");
    expect(ftsTerms(many)).toHaveLength(16);
  });
});

describe("ftsMatchExpression", () => {
  it("joins terms with AND or OR", () => {
    expect(ftsMatchExpression(['"a"', '"b"'], "all")).toBe('"a" AND "b"');
    expect(ftsMatchExpression(['"a"', '"b"'], "any")).toBe('"a" OR "b"');
  });
});

describe("ownedMatchExpression", () => {
  it("restricts the terms to the text column of one owner's rows", () => {
    const owner = searchOwnerToken("telegram", "42");
    expect(owner).toBe("74656C656772616DX3432");
    expect(ownedMatchExpression(owner, ['"a"', '"b"'], "any")).toBe('owner : "74656C656772616DX3432" AND text : ("a" OR "b")');
  });
});

describe("rankingTerms", () => {
  it("leaves out English stop words in any case, keeping the rest in order", () => {
    expect(rankingTerms(['"The"', '"lighthouse"', '"AND"', '"keeper"', '"theory"'])).toEqual(['"lighthouse"', '"keeper"', '"theory"']);
    expect(rankingTerms(['"the"', '"with"'])).toEqual([]);
  });
});
