import { describe, expect, it } from "vitest";
import { compileGlob } from "./glob.js";

function matcher(glob: string): (relativePath: string) => boolean {
  const compiled = compileGlob(glob);
  if (!compiled.ok) throw new Error(compiled.error);
  return compiled.matches;
}

describe("compileGlob", () => {
  it("matches a glob without / against the file name at any depth", () => {
    const ts = matcher("*.ts");
    expect(ts("a.ts")).toBe(true);
    expect(ts("src/deep/b.ts")).toBe(true);
    expect(ts("a.tsx")).toBe(false);
  });

  it("keeps * and ? within one path segment", () => {
    const direct = matcher("src/*.ts");
    expect(direct("src/a.ts")).toBe(true);
    expect(direct("src/lib/a.ts")).toBe(false);
    const single = matcher("file?.txt");
    expect(single("file1.txt")).toBe(true);
    expect(single("file10.txt")).toBe(false);
  });

  it("lets ** span any number of folders, including none", () => {
    const deep = matcher("src/**/*.ts");
    expect(deep("src/a.ts")).toBe(true);
    expect(deep("src/x/y/z.ts")).toBe(true);
    expect(deep("lib/a.ts")).toBe(false);
    expect(matcher("**/test/**")("pkg/test/unit/a.js")).toBe(true);
  });

  it("supports {a,b} alternatives, nested too", () => {
    const either = matcher("*.{js,ts}");
    expect(either("a.js")).toBe(true);
    expect(either("a.ts")).toBe(true);
    expect(either("a.md")).toBe(false);
    const nested = matcher("*.{md,{c,m}js}");
    expect(nested("x.cjs")).toBe(true);
    expect(nested("x.mjs")).toBe(true);
    expect(nested("x.js")).toBe(false);
  });

  it("treats regular-expression characters literally", () => {
    const literal = matcher("a+(b).[c]$");
    expect(literal("a+(b).[c]$")).toBe(true);
    expect(literal("aa(b)x[c]")).toBe(false);
  });

  it("reports an unclosed brace", () => {
    const compiled = compileGlob("*.{js,ts");
    expect(compiled.ok).toBe(false);
    expect(compiled.ok ? "" : compiled.error).toContain("unclosed");
  });
});

describe("compileGlob on hostile globs", () => {
  it("answers at once for globs that make a backtracking matcher explode", () => {
    const name = "a".repeat(5_000);
    expect(matcher(`${"*a".repeat(40)}*b`)(name)).toBe(false);
    expect(matcher(`${"*a".repeat(40)}*`)(name)).toBe(true);
    expect(matcher(`${"**/a".repeat(30)}/b`)(Array.from({ length: 400 }, () => "a").join("/"))).toBe(false);
    expect(matcher(`{${"*a,".repeat(50)}x}{${"*a,".repeat(50)}y}`)(`${name}`)).toBe(true);
  });

  it("treats runs of stars like one * or **", () => {
    expect(matcher("src/***.ts")("src/deep/a.ts")).toBe(true);
    expect(matcher("src/**/*.ts")("src/a.ts")).toBe(true);
    expect(matcher("a*?*b")("a-b")).toBe(true);
    expect(matcher("a*?*b")("ab")).toBe(false);
    expect(matcher("a*/*b")("ax/yb")).toBe(true);
  });

  it("matches characters outside the basic plane as one character", () => {
    expect(matcher("?.txt")("😀.txt")).toBe(true);
    expect(matcher("😀*")("😀note")).toBe(true);
  });
});
